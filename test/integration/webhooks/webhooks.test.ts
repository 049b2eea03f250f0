import assert from 'node:assert/strict';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { uuidv7 } from '../../../src/ids';
import { paymentEvent, provisionAccount, sendProviderEvent } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver, type ReceivedCall } from '../../helpers/receiver';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

/** The check a tenant's receiver runs, written from SPEC.md alone. */
function signatureValid(received: ReceivedCall, secret: string): boolean {
  const header = String(received.headers['x-service-signature'] ?? '');
  const fields = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const t = Number(fields.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300 || !fields.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${received.body}`).digest();
  const given = Buffer.from(fields.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('outbound webhooks on the dev server', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ WEBHOOK_RETRY_SCHEDULE: '300ms', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT: '500ms' }, { worker: true });
  });
  after(() => stack.close());

  async function paymentTo(callbackUrl: string) {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey, { callbackUrl });
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25 });
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    const delivery = await stack.infra.db('webhook_deliveries').where({ account_id: account.ID }).first();
    return { tenant, account, deliveryId: delivery.id as string };
  }

  it('retries a failing receiver on the schedule: three calls, one event id, each signed at send time', async () => {
    const receiver = await startReceiver([500, 503, 200]);
    try {
      const tenant = await createTenant(stack);
      const cookie = await dashboardSession(stack, tenant.tenantId);
      const secret = (await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: {} })).body.secret as string;
      assert.match(secret, /^whsec_/);
      const account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: receiver.url });
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(async () => receiver.calls.length === 3, { what: 'three delivery attempts' });
      const eventIds = new Set(receiver.calls.map((received) => received.headers['x-event-id']));
      assert.equal(eventIds.size, 1);
      assert.ok(receiver.calls.every((received) => signatureValid(received, secret)));
      assert.ok(receiver.calls.every((received) => received.body === receiver.calls[0]!.body));
      assert.equal(receiver.calls[0]!.headers['content-type'], 'application/json');
      const delivery = await stack.infra.db('webhook_deliveries').where({ account_id: account.ID }).first();
      const detail = await eventually(async () => {
        const response = await call(stack.apiUrl, 'GET', `/v1/webhooks/deliveries/${delivery.id}`, { apiKey: tenant.apiKey });
        return response.body.Status === 'succeeded' ? response.body : null;
      });
      assert.equal(detail.AttemptCount, 3);
      assert.deepEqual(
        detail.Attempts.map((attempt: { StatusCode: number }) => attempt.StatusCode),
        [500, 503, 200],
      );
      assert.equal(detail.NextRetryAt, null);
      assert.equal(detail.EventID, eventIds.values().next().value);
    } finally {
      await receiver.close();
    }
  });

  it('sends no signature header when the tenant has no secret, and stops signing after DELETE', async () => {
    const receiver = await startReceiver([200]);
    try {
      const { tenant } = await paymentTo(receiver.url);
      await eventually(async () => receiver.calls.length === 1);
      assert.equal(receiver.calls[0]!.headers['x-service-signature'], undefined);
      const cookie = await dashboardSession(stack, tenant.tenantId);
      assert.equal((await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: { secret: 'x'.repeat(24) } })).status, 200);
      assert.equal((await call(stack.apiUrl, 'DELETE', '/auth/webhook-secret', { cookie })).status, 204);
      const tenantRow = await stack.infra.db('tenants').where({ id: tenant.tenantId }).first();
      assert.equal(tenantRow.webhook_secret_enc, null);
    } finally {
      await receiver.close();
    }
  });

  it('dead-letters a delivery that fails every attempt (timeouts and redirects count as failures), and replays it', async () => {
    const receiver = await startReceiver(['hang', 302, 500]);
    try {
      const { tenant, deliveryId } = await paymentTo(receiver.url);
      const letters = await eventually(async () => {
        const response = await call(stack.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey });
        return response.body.deadLetters.length === 1 ? response.body : null;
      });
      const letter = letters.deadLetters[0];
      assert.deepEqual(Object.keys(letter).sort(), [
        'AttemptCount',
        'CallbackURL',
        'CreatedAt',
        'ID',
        'LastError',
        'NextRetryAt',
        'Status',
      ]);
      assert.deepEqual(
        {
          ID: letter.ID,
          CallbackURL: letter.CallbackURL,
          Status: letter.Status,
          AttemptCount: letter.AttemptCount,
          LastError: letter.LastError,
          NextRetryAt: letter.NextRetryAt,
        },
        { ID: deliveryId, CallbackURL: receiver.url, Status: 'dead_letter', AttemptCount: 3, LastError: 'HTTP 500', NextRetryAt: null },
      );
      const detail = (await call(stack.apiUrl, 'GET', `/v1/webhooks/deliveries/${deliveryId}`, { apiKey: tenant.apiKey })).body;
      assert.match(detail.Attempts[0].Error, /timed out/);
      assert.equal(detail.Attempts[1].StatusCode, 302);

      receiver.answer([200]);
      const replay = await call(stack.apiUrl, 'POST', `/v1/webhooks/dead-letters/${deliveryId}/replay`, { apiKey: tenant.apiKey });
      assert.equal(replay.status, 202);
      assert.equal(replay.body.ReplayOf, deliveryId);
      await eventually(async () => receiver.calls.length === 4, { what: 'the replayed delivery' });
      assert.equal(receiver.calls[3]!.headers['x-event-id'], receiver.calls[0]!.headers['x-event-id']);
      const replayed = await eventually(async () => {
        const response = await call(stack.apiUrl, 'GET', `/v1/webhooks/deliveries/${replay.body.ID}`, { apiKey: tenant.apiKey });
        return response.body.Status === 'succeeded' ? response.body : null;
      });
      assert.equal(replayed.AttemptCount, 1);
      const again = await call(stack.apiUrl, 'POST', `/v1/webhooks/dead-letters/${replay.body.ID}/replay`, { apiKey: tenant.apiKey });
      assert.equal(again.status, 409);
    } finally {
      await receiver.close();
    }
  });

  it("keeps tenants apart: another tenant's delivery is not found", async () => {
    const { deliveryId } = await paymentTo('http://127.0.0.1:9/hook');
    const other = await createTenant(stack);
    for (const [method, path] of [
      ['GET', `/v1/webhooks/deliveries/${deliveryId}`],
      ['POST', `/v1/webhooks/dead-letters/${deliveryId}/replay`],
      ['GET', '/v1/webhooks/deliveries/not-a-uuid'],
    ] as const) {
      const response = await call(stack.apiUrl, method, path, { apiKey: other.apiKey });
      assert.equal(response.status, 404, path);
      assert.equal(response.body.error, 'delivery not found');
    }
  });

  it('lists processing errors beside dead letters', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 10, fee: 25 });
    await sendProviderEvent(stack, payload);
    const listing = (await call(stack.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey })).body;
    assert.equal(listing.processingErrors.length, 1);
    assert.deepEqual(
      { ...listing.processingErrors[0], ID: undefined, ReceivedAt: undefined },
      {
        ID: undefined,
        RequestID: payload.requestId,
        AccountRef: account.AccountRef,
        Error: 'fee must be less than transactionAmount',
        ReceivedAt: undefined,
      },
    );
  });

  it('lists every dead letter and processing error in one response (no silent second page), the cursor still working', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    const db = stack.infra.db;
    const letters = Array.from({ length: 120 }, () => ({
      id: uuidv7(),
      event_id: randomUUID(),
      tenant_id: tenant.tenantId,
      account_id: account.ID,
      callback_url: 'https://example.com/hook',
      payload: '{}',
      status: 'dead_letter',
      attempt_count: 5,
      last_error: 'HTTP 500',
      event_received_at: new Date(),
    }));
    await db('webhook_deliveries').insert(letters);
    const errors = Array.from({ length: 70 }, () => ({
      id: uuidv7(),
      request_id: randomUUID(),
      category: 'processing_error',
      signature_valid: true,
      tenant_id: tenant.tenantId,
      account_id: account.ID,
      error: 'ledger write failed',
    }));
    // As the API records them: each verified event with its request id's key (ledger:verify holds every such event to one).
    await db.transaction(async (trx) => {
      await trx('inbound_events').insert(errors);
      await trx('inbound_event_request_keys').insert(
        errors.map((error) => ({ request_id: error.request_id, tenant_id: error.tenant_id, event_id: error.id, created_at: new Date() })),
      );
    });
    const listing = await call(stack.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey });
    assert.equal(listing.status, 200);
    assert.equal(listing.body.deadLetters.length, 120);
    assert.equal(listing.body.processingErrors.length, 70);
    assert.deepEqual([listing.body.pagination.hasMore, listing.body.processingErrorsPagination.hasMore], [false, false]);
    // Newest first (ids are time-ordered); `after` still skips to older ones.
    const ids = letters.map((letter) => letter.id).sort();
    assert.deepEqual(
      listing.body.deadLetters.map((letter: { ID: string }) => letter.ID),
      [...ids].reverse(),
    );
    const older = await call(stack.apiUrl, 'GET', `/v1/webhooks/dead-letters?after=${ids[20]}`, { apiKey: tenant.apiKey });
    assert.deepEqual(
      older.body.deadLetters.map((letter: { ID: string }) => letter.ID),
      ids.slice(0, 20).reverse(),
    );
  });

  it('manages the signing secret with a dashboard session only', async () => {
    const tenant = await createTenant(stack);
    assert.equal((await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { apiKey: tenant.apiKey, body: {} })).status, 401);
    const cookie = await dashboardSession(stack, tenant.tenantId);
    const short = await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: { secret: 'too-short' } });
    assert.equal(short.status, 400);
    assert.equal(short.body.error, 'secret must be at least 24 characters');
    const chosen = await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: { secret: 'my-own-secret-of-24-chars!' } });
    assert.deepEqual(chosen.body, { secret: 'my-own-secret-of-24-chars!' });
    const stored = (await stack.infra.db('tenants').where({ id: tenant.tenantId }).first()).webhook_secret_enc as string;
    assert.ok(!stored.includes('my-own-secret'));
  });
});
