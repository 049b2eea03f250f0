import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { call, eventually } from '../helpers/http';
import { startReceiver, type ReceivedCall } from '../helpers/receiver';
import { system } from './system';
import { cliTenant, provision } from './tenant';

function verifies(received: ReceivedCall, secret: string): boolean {
  const header = String(received.headers['x-service-signature'] ?? '');
  const { t, v1 } = Object.fromEntries(header.split(',').map((part) => part.split('='))) as { t?: string; v1?: string };
  if (!t || !v1 || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${received.body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('e2e: outbound webhooks to a real local receiver', () => {
  it('a receiver that fails twice then succeeds gets the event three times, one X-Event-Id, validly signed', async () => {
    const sys = await system();
    const receiver = await startReceiver([500, 502, 200]);
    try {
      const tenant = await cliTenant(sys);
      const email = `e2e+${Date.now()}@example.com`;
      await sys.cliWithStdin('an e2e dashboard password', 'user:create', '--tenant', tenant.tenantId, '--email', email);
      const login = await call(sys.apiUrl, 'POST', '/auth/login', { body: { email, password: 'an e2e dashboard password' } });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const secret = (await call(sys.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: {} })).body.secret as string;
      const account = await provision(sys, tenant.apiKey, { callbackUrl: receiver.url });
      await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
      await eventually(async () => receiver.calls.length === 3, { what: 'three attempts' });
      assert.equal(new Set(receiver.calls.map((received) => received.headers['x-event-id'])).size, 1);
      assert.ok(receiver.calls.every((received) => verifies(received, secret)));
      const body = JSON.parse(receiver.calls[0]!.body);
      assert.deepEqual(
        [body.eventType, body.accountRef, body.amount, body.gross_amount, body.provider_fee, body.status],
        ['payment.received', account.AccountRef, '5000.00', '5025.00', '25.00', 'provisional'],
      );
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that always fails ends in the dead-letters listing, and a replay delivers it', async () => {
    const sys = await system();
    const receiver = await startReceiver([500]);
    try {
      const tenant = await cliTenant(sys);
      const account = await provision(sys, tenant.apiKey, { callbackUrl: receiver.url });
      await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 1010 } });
      const letter = await eventually(
        async () => (await call(sys.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey })).body.deadLetters[0],
        {
          what: 'the dead letter',
        },
      );
      assert.deepEqual(
        [letter.Status, letter.AttemptCount, letter.NextRetryAt, letter.CallbackURL],
        ['dead_letter', 3, null, receiver.url],
      );
      receiver.answer([200]);
      const replay = await call(sys.apiUrl, 'POST', `/v1/webhooks/dead-letters/${letter.ID}/replay`, { apiKey: tenant.apiKey });
      assert.equal(replay.status, 202);
      await eventually(async () => receiver.calls.length === 4, { what: 'the replay' });
      assert.equal(receiver.calls[3]!.headers['x-event-id'], receiver.calls[0]!.headers['x-event-id']);
    } finally {
      await receiver.close();
    }
  });
});
