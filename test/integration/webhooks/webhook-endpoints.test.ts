import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver, type ReceivedCall } from '../../helpers/receiver';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { magicAccountNumber } from '../../helpers/sandbox-values';

/** A receiver's check: `t=` fresh and any `v1=` the HMAC of "<t>.<body>" under `secret`. */
function signedWith(received: ReceivedCall, secret: string): boolean {
  const parts = String(received.headers['x-service-signature'] ?? '').split(',');
  const t = Number(parts.find((part) => part.startsWith('t='))?.slice(2));
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${received.body}`).digest();
  return parts
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

const typesOf = (calls: ReceivedCall[]): string[] => calls.map((received) => JSON.parse(received.body).type as string);

describe('webhook endpoints and subscribable events', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack(
      {
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
        SETTLEMENT_REFUND_WATCH: '1s',
        SANDBOX_REFUND_DELAY: '300ms',
        WEBHOOK_RETRY_SCHEDULE: '300ms',
        WEBHOOK_MAX_ATTEMPTS: '8',
        WEBHOOK_ENDPOINT_DISABLE_AFTER: '1s',
        EVENT_DISPATCH_INTERVAL: '100ms',
      },
      { worker: true },
    );
  });
  after(() => stack.close());

  const createEndpoint = (tenant: TestTenant, body: Record<string, unknown>) =>
    call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', { apiKey: tenant.apiKey, body });

  async function settleAndWait(tenant: TestTenant, accountNumber: string, finalStatus: string): Promise<string> {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202);
    const ref = response.body.merchantTxRef as string;
    await eventually(
      async () => (await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body.status === finalStatus,
      {
        what: `status ${finalStatus}`,
      },
    );
    return ref;
  }

  it('refuses an unknown event type naming the known ones, and a URL the address policy refuses', async () => {
    const tenant = await createTenant(stack);
    const unknown = await createEndpoint(tenant, { url: 'https://example.com/hook', eventTypes: ['settlement.paid'] });
    assert.equal(unknown.status, 400);
    assert.match(
      JSON.stringify(unknown.body),
      /settlement\.paid: unknown event type; the known ones are payment\.received, .*settlement\.succeeded/,
    );
    const credentials = await createEndpoint(tenant, { url: 'https://user:pw@example.com/hook' });
    assert.equal(credentials.status, 400);
    assert.match(credentials.body.error, /url must not carry credentials/);
    const notUrl = await createEndpoint(tenant, { url: 'ftp://example.com' });
    assert.equal(notUrl.status, 400);
    assert.match(notUrl.body.error, /url must be an absolute http\(s\) URL/);
  });

  it('delivers settlement.succeeded and settlement.refunded, signed, to a settlement.* subscriber and nothing else; the callbackUrl gets only payment.received, unchanged', async () => {
    const endpointReceiver = await startReceiver([200]);
    const everythingReceiver = await startReceiver([200]);
    const callbackReceiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const settlementsOnly = await createEndpoint(tenant, {
        url: endpointReceiver.url,
        description: 'payouts',
        eventTypes: ['settlement.succeeded', 'settlement.failed', 'settlement.refunded'],
      });
      assert.equal(settlementsOnly.status, 201);
      const secret = settlementsOnly.body.Secret as string;
      assert.match(secret, /^whsec_/);
      assert.deepEqual(settlementsOnly.body.EventTypes, ['settlement.succeeded', 'settlement.failed', 'settlement.refunded']);
      const listed = await call(stack.apiUrl, 'GET', '/v1/webhook-endpoints', { apiKey: tenant.apiKey });
      assert.equal(listed.body.endpoints[0].Secret, undefined);
      assert.equal((await createEndpoint(tenant, { url: everythingReceiver.url })).body.EventTypes[0], '*');

      const account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: callbackReceiver.url });
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25 }));
      const paidRef = await settleAndWait(tenant, '0123456789', 'success');
      const refundedRef = await settleAndWait(tenant, magicAccountNumber('refundedAfterSuccess', '000000'), 'refunded');

      await eventually(async () => endpointReceiver.calls.length >= 3, { what: 'three settlement events' });
      await eventually(async () => everythingReceiver.calls.length >= 4, { what: 'four events to the all-types endpoint' });
      const received = endpointReceiver.calls.map((one) => JSON.parse(one.body));
      assert.ok(received.every((event) => event.type.startsWith('settlement.')));
      assert.deepEqual(
        received.filter((event) => event.subject === paidRef).map((event) => [event.type, event.sequence, event.data.status]),
        [['settlement.succeeded', 2, 'success']],
      );
      assert.deepEqual(
        received
          .filter((event) => event.subject === refundedRef)
          .sort((a, b) => a.sequence - b.sequence)
          .map((event) => [event.type, event.sequence]),
        [
          ['settlement.succeeded', 2],
          ['settlement.refunded', 3],
        ],
      );
      assert.ok(endpointReceiver.calls.every((one) => signedWith(one, secret)));
      assert.ok(endpointReceiver.calls.every((one) => one.headers['x-event-id'] === JSON.parse(one.body).id));
      assert.ok(typesOf(everythingReceiver.calls).includes('payment.received'));

      await eventually(async () => callbackReceiver.calls.length >= 1);
      assert.equal(callbackReceiver.calls.length, 1);
      const callbackBody = JSON.parse(callbackReceiver.calls[0]!.body);
      assert.deepEqual(Object.keys(callbackBody), [
        'eventType',
        'transactionGroupId',
        'accountRef',
        'amount',
        'gross_amount',
        'provider_fee',
        'currency',
        'senderName',
        'narration',
        'status',
      ]);
      assert.equal(callbackBody.eventType, 'payment.received');
      const forEndpoint = everythingReceiver.calls.map((one) => JSON.parse(one.body)).find((event) => event.type === 'payment.received');
      assert.equal(JSON.stringify(forEndpoint.data), callbackReceiver.calls[0]!.body);
    } finally {
      await Promise.all([endpointReceiver.close(), everythingReceiver.close(), callbackReceiver.close()]);
    }
  });

  it('records the events no endpoint takes as dispatched, and leaves those an endpoint takes to the dispatcher', async () => {
    const receiver = await startReceiver([200]);
    try {
      const without = await createTenant(stack);
      const otherTypes = await createTenant(stack);
      const subscribed = await createTenant(stack);
      assert.equal((await createEndpoint(otherTypes, { url: receiver.url, eventTypes: ['settlement.created'] })).status, 201);
      assert.equal((await createEndpoint(subscribed, { url: receiver.url, eventTypes: ['payment.received'] })).status, 201);
      for (const tenant of [without, otherTypes, subscribed]) {
        const account = await provisionAccount(stack, tenant.apiKey);
        assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }))).status, 200);
      }
      // The event's created_at is the clock as its row was written, dispatched_at its transaction's start when recorded
      // dispatched: at or before it. A dispatcher's pass is a later transaction: after it.
      const received = async (tenant: TestTenant) =>
        (
          await stack.infra.db.raw<{ rows: Array<{ dispatched: boolean; atRecord: boolean }> }>(
            `SELECT dispatched_at IS NOT NULL AS dispatched, dispatched_at <= created_at AS "atRecord"
               FROM tenant_events WHERE tenant_id = ? AND type = 'payment.received'`,
            [tenant.tenantId],
          )
        ).rows;
      assert.deepEqual(await received(without), [{ dispatched: true, atRecord: true }]);
      assert.deepEqual(await received(otherTypes), [{ dispatched: true, atRecord: true }]);
      await eventually(async () => receiver.calls.length >= 1, { what: "the subscribed tenant's payment.received delivered" });
      assert.deepEqual(await received(subscribed), [{ dispatched: true, atRecord: false }]);
      assert.deepEqual(typesOf(receiver.calls), ['payment.received']);
    } finally {
      await receiver.close();
    }
  });

  it("never sends a tenant another tenant's events", async () => {
    const mine = await startReceiver([200]);
    const theirs = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const other = await createTenant(stack);
      await createEndpoint(tenant, { url: mine.url });
      await createEndpoint(other, { url: theirs.url });
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(async () => mine.calls.length >= 1, { what: "the tenant's own event" });
      // Every event of the two tenants is dispatched: the other tenant's endpoint had its chance. (Other files share the
      // lane's database, and a tenant they fenced for a move keeps its events undispatched here for good.)
      await eventually(
        async () =>
          (
            await stack.infra
              .db('tenant_events')
              .whereIn('tenant_id', [tenant.tenantId, other.tenantId])
              .whereNull('dispatched_at')
              .count({ n: '*' })
              .first()
          )?.n === '0',
        { what: "the two tenants' events dispatched" },
      );
      assert.equal(theirs.calls.length, 0);
      assert.equal(
        await stack.infra
          .db('webhook_deliveries')
          .join('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
          .whereRaw('webhook_endpoints.tenant_id <> webhook_deliveries.tenant_id')
          .first(),
        undefined,
      );
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
    }
  });

  it('rotating a secret signs with both until the overlap ends', async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const created = await createEndpoint(tenant, { url: receiver.url, eventTypes: ['payment.received'] });
      const rotated = await call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${created.body.ID}/rotate-secret`, { apiKey: tenant.apiKey });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.Secret, created.body.Secret);
      assert.ok(rotated.body.SecretRotatedUntil);
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(async () => receiver.calls.length >= 1);
      assert.ok(signedWith(receiver.calls[0]!, created.body.Secret));
      assert.ok(signedWith(receiver.calls[0]!, rotated.body.Secret));
      assert.ok(!signedWith(receiver.calls[0]!, 'whsec_not-the-secret'));
    } finally {
      await receiver.close();
    }
  });

  it('deleting an endpoint cancels its pending deliveries (cancelled, not dead letters)', async () => {
    const receiver = await startReceiver([500]);
    try {
      const tenant = await createTenant(stack);
      const created = await createEndpoint(tenant, { url: receiver.url });
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(async () => receiver.calls.length >= 1, { what: 'a first failed attempt' });
      assert.equal((await call(stack.apiUrl, 'DELETE', `/v1/webhook-endpoints/${created.body.ID}`, { apiKey: tenant.apiKey })).status, 204);
      const delivery = await stack.infra.db('webhook_deliveries').where({ endpoint_id: created.body.ID }).first();
      const detail = await call(stack.apiUrl, 'GET', `/v1/webhooks/deliveries/${delivery.id}`, { apiKey: tenant.apiKey });
      assert.equal(detail.body.Status, 'cancelled');
      const letters = await call(stack.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey });
      assert.equal(letters.body.deadLetters.length, 0);
      assert.equal((await call(stack.apiUrl, 'GET', `/v1/webhook-endpoints/${created.body.ID}`, { apiKey: tenant.apiKey })).status, 404);
      const calls = receiver.calls.length;
      // The run stops at its next send: the delivery stays cancelled and no further attempt is made.
      const handle = stack.infra.temporal.workflow.getHandle(`webhook-delivery:${delivery.id}`);
      await assert.rejects(handle.result());
      assert.equal(receiver.calls.length, calls);
      assert.equal((await stack.infra.db('webhook_deliveries').where({ id: delivery.id }).first()).status, 'cancelled');
    } finally {
      await receiver.close();
    }
  });

  it('sends nothing more to an endpoint disabled while its delivery waits to be retried: the delivery ends cancelled, not sent', async () => {
    const receiver = await startReceiver([500]);
    try {
      const tenant = await createTenant(stack);
      const created = await createEndpoint(tenant, { url: receiver.url, eventTypes: ['payment.received'] });
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(async () => receiver.calls.length >= 1, { what: 'a first failed attempt' });
      const disabled = await call(stack.apiUrl, 'PATCH', `/v1/webhook-endpoints/${created.body.ID}`, {
        apiKey: tenant.apiKey,
        body: { enabled: false },
      });
      assert.equal(disabled.status, 200, disabled.text);
      const calls = receiver.calls.length;
      const delivery = await stack.infra.db('webhook_deliveries').where({ endpoint_id: created.body.ID }).first();
      const handle = stack.infra.temporal.workflow.getHandle(`webhook-delivery:${delivery.id}`);
      await assert.rejects(handle.result());
      assert.equal(receiver.calls.length, calls, 'no attempt after the endpoint was disabled');
      const detail = await call(stack.apiUrl, 'GET', `/v1/webhooks/deliveries/${delivery.id}`, { apiKey: tenant.apiKey });
      assert.deepEqual(
        [detail.body.Status, detail.body.LastError, detail.body.NextRetryAt],
        ['cancelled', 'not sent: the endpoint is disabled', null],
      );
      assert.equal(detail.body.Attempts.length, calls);
    } finally {
      await receiver.close();
    }
  });

  it('disables an endpoint that failed every delivery for the configured time, tells the other endpoints, and re-enables in one call', async () => {
    const dead = await startReceiver([500]);
    const healthy = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const failing = await createEndpoint(tenant, { url: dead.url, eventTypes: ['payment.received'] });
      await createEndpoint(tenant, { url: healthy.url, eventTypes: ['webhook_endpoint.disabled'] });
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      const disabled = await eventually(
        async () => {
          const current = await call(stack.apiUrl, 'GET', `/v1/webhook-endpoints/${failing.body.ID}`, { apiKey: tenant.apiKey });
          return current.body.Enabled === false ? current.body : null;
        },
        { what: 'the failing endpoint disabled' },
      );
      assert.match(disabled.DisabledReason, /every delivery failed since/);
      assert.equal(disabled.Health.LastError, 'HTTP 500');
      assert.ok(disabled.Health.FailingSince);
      await eventually(async () => healthy.calls.length >= 1, { what: 'the disabled event at the other endpoint' });
      const told = JSON.parse(healthy.calls[0]!.body);
      assert.equal(told.type, 'webhook_endpoint.disabled');
      assert.equal(told.data.endpointId, failing.body.ID);
      const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'webhook_endpoint.disabled' }).first();
      assert.equal(audit.target_id, failing.body.ID);
      const enabled = await call(stack.apiUrl, 'PATCH', `/v1/webhook-endpoints/${failing.body.ID}`, {
        apiKey: tenant.apiKey,
        body: { enabled: true },
      });
      assert.equal(enabled.status, 200);
      assert.equal(enabled.body.Enabled, true);
      assert.equal(enabled.body.Health.FailingSince, null);
    } finally {
      await Promise.all([dead.close(), healthy.close()]);
    }
  });

  it('recover re-sends exactly the events since the time given, in order', async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(
        async () => (await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId }).count({ n: '*' }).first())?.n === '1',
      );
      // The next whole millisecond: the API speaks milliseconds, the database microseconds.
      const since = new Date(new Date((await stack.infra.db.raw('SELECT clock_timestamp() AS now')).rows[0].now).getTime() + 1);
      for (let i = 0; i < 3; i += 1) await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      // Dispatched before the endpoint exists: it gets them only by recovering.
      await eventually(
        async () =>
          (await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId }).whereNull('dispatched_at').first()) === undefined,
        {
          what: 'events dispatched',
        },
      );
      const created = await createEndpoint(tenant, { url: receiver.url });
      const recovered = await call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${created.body.ID}/recover`, {
        apiKey: tenant.apiKey,
        body: { since: since.toISOString() },
      });
      assert.equal(recovered.status, 202);
      assert.deepEqual(recovered.body, { Queued: 3, Next: null });
      await eventually(async () => receiver.calls.length >= 3, { what: 'three recovered events' });
      const expected = (
        await stack.infra
          .db('tenant_events')
          .where({ tenant_id: tenant.tenantId })
          .where('created_at', '>=', since)
          .orderBy(['created_at', 'id'])
      ).map((row: { id: string }) => row.id);
      assert.deepEqual(new Set(receiver.calls.map((one) => JSON.parse(one.body).id)), new Set(expected));
      const bad = await call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${created.body.ID}/recover`, {
        apiKey: tenant.apiKey,
        body: { since: 'yesterday' },
      });
      assert.equal(bad.status, 400);
    } finally {
      await receiver.close();
    }
  });
});
