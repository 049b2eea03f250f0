import assert from 'node:assert/strict';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { paymentEvent, provisionAccount, sendProviderEvent } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver, type ReceivedCall } from '../../helpers/receiver';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { recordEvent } from '../../../src/events/tenant-events';
import { unavailableNin } from '../../helpers/sandbox-values';

const VERIFIED_NIN = '12345678901';
const UNAVAILABLE_NIN = unavailableNin('12345678');
const PAYMENT_TYPES = ['payment.received', 'payment.confirmed', 'payment.reversed'];

/** The `v1=` signatures of a delivery, and whether one of them is the HMAC of "<t>.<body>" under `secret`. */
function signatures(received: ReceivedCall): { t: number; v1: string[] } {
  const parts = String(received.headers['x-service-signature'] ?? '').split(',');
  return {
    t: Number(parts.find((part) => part.startsWith('t='))?.slice(2)),
    v1: parts.filter((part) => part.startsWith('v1=')).map((part) => part.slice(3)),
  };
}

function signedWith(received: ReceivedCall, secret: string): boolean {
  const { t, v1 } = signatures(received);
  const expected = createHmac('sha256', secret).update(`${t}.${received.body}`).digest();
  return v1.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

interface Envelope {
  id: string;
  type: string;
  subject: string;
  sequence: number;
  data: Record<string, unknown>;
}

const envelopes = (calls: ReceivedCall[]): Envelope[] => calls.map((one) => JSON.parse(one.body) as Envelope);

/** A subject's events as [type, sequence], in sequence order. */
const story = (events: Envelope[], subject: string) =>
  events
    .filter((event) => event.subject === subject)
    .sort((a, b) => a.sequence - b.sequence)
    .map((event) => [event.type, event.sequence]);

describe('subscribable events: payments, KYC, recovery and secret rotation', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack(
      {
        CONFIRMATION_WINDOW: '3s',
        CONFIRMATION_POLL_INTERVAL: '500ms',
        EVENT_DISPATCH_INTERVAL: '100ms',
        WEBHOOK_RETRY_SCHEDULE: '300ms',
        WEBHOOK_RECOVER_MAX_EVENTS: '2',
        RATE_LIMIT_ENDPOINT_RECOVERIES: '3/1h',
        WEBHOOK_SECRET_ROTATION_OVERLAP: '1s',
      },
      { worker: true },
    );
  });
  after(() => stack.close());

  const createEndpoint = (tenant: TestTenant, body: Record<string, unknown>) =>
    call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', { apiKey: tenant.apiKey, body });

  async function groupOf(providerTxnRef: string): Promise<string> {
    const credit = await eventually<{ transaction_group_id: string }>(
      () => stack.infra.db('ledger_entries').where({ provider_txn_ref: providerTxnRef, kind: 'payment' }).first('transaction_group_id'),
      {
        what: 'the credit',
      },
    );
    return credit.transaction_group_id;
  }

  it('a payment subscriber receives payment.received then payment.confirmed for a confirmed payment, and payment.received then payment.reversed for a reversed one', async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const created = await createEndpoint(tenant, { url: receiver.url, eventTypes: PAYMENT_TYPES });
      assert.equal(created.status, 201);
      const account = await provisionAccount(stack, tenant.apiKey);
      const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
      assert.equal(paid.body.delivery.status, 200);
      const unknown = paymentEvent({ accountRef: account.AccountRef, amount: 2010, fee: 10 });
      await sendProviderEvent(stack, unknown);
      const confirmedGroup = await groupOf(paid.body.transactionId);
      const reversedGroup = await groupOf((unknown.data as { transaction: { transactionId: string } }).transaction.transactionId);

      await eventually(async () => receiver.calls.length >= 4, { what: 'two events for each payment' });
      const received = envelopes(receiver.calls);
      assert.deepEqual(story(received, confirmedGroup), [
        ['payment.received', 1],
        ['payment.confirmed', 2],
      ]);
      assert.deepEqual(story(received, reversedGroup), [
        ['payment.received', 1],
        ['payment.reversed', 2],
      ]);
      const confirmed = received.find((event) => event.type === 'payment.confirmed')!;
      assert.deepEqual(confirmed.data, {
        transactionGroupId: confirmedGroup,
        accountRef: account.AccountRef,
        amount: '5000.00',
        currency: 'NGN',
      });
      const reversed = received.find((event) => event.type === 'payment.reversed')!;
      assert.deepEqual([reversed.data.amount, reversed.data.accountRef], ['2000.00', account.AccountRef]);
      assert.equal(typeof reversed.data.reason, 'string');
      assert.ok(receiver.calls.every((one) => signedWith(one, created.body.Secret)));
      assert.equal(receiver.calls.length, 4);
    } finally {
      await receiver.close();
    }
  });

  it("sends kyc.approved and kyc.rejected for the verifier's and an operator's decisions", async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const operator = await dashboardSession(stack, tenant.tenantId);
      await createEndpoint(tenant, { url: receiver.url, eventTypes: ['kyc.approved', 'kyc.rejected'] });
      const customerOf = async (externalRef: string) => (await provisionAccount(stack, tenant.apiKey, { externalRef })).CustomerID;
      const [verified, approved, rejected] = [
        await customerOf('kyc-verified'),
        await customerOf('kyc-approved'),
        await customerOf('kyc-rejected'),
      ];
      const submit = (id: string, nin: string) =>
        call(stack.apiUrl, 'POST', `/v1/customers/${id}/kyc`, { apiKey: tenant.apiKey, body: { nin } });
      assert.equal((await submit(verified, VERIFIED_NIN)).body.KYCStatus, 'approved');
      assert.equal((await submit(approved, UNAVAILABLE_NIN)).body.KYCStatus, 'pending_review');
      assert.equal((await submit(rejected, UNAVAILABLE_NIN)).body.KYCStatus, 'pending_review');
      assert.equal((await call(stack.apiUrl, 'POST', `/auth/customers/${approved}/kyc/approve`, { cookie: operator })).status, 200);
      assert.equal((await call(stack.apiUrl, 'POST', `/auth/customers/${rejected}/kyc/reject`, { cookie: operator })).status, 200);

      await eventually(async () => receiver.calls.length >= 3, { what: 'three KYC decisions' });
      const bySubject = new Map(envelopes(receiver.calls).map((event) => [event.subject, event]));
      assert.deepEqual(
        [verified, approved, rejected].map((id) => [
          bySubject.get(id)?.type,
          bySubject.get(id)?.data.externalRef,
          bySubject.get(id)?.data.tier,
        ]),
        [
          ['kyc.approved', 'kyc-verified', '2'],
          ['kyc.approved', 'kyc-approved', '2'],
          ['kyc.rejected', 'kyc-rejected', '1'],
        ],
      );
      assert.match(String(bySubject.get(rejected)!.data.reason), /unavailable/);
      assert.equal(receiver.calls.length, 3);
    } finally {
      await receiver.close();
    }
  });

  it('recover continues past WEBHOOK_RECOVER_MAX_EVENTS with Next, re-sending every event once, and is rate limited per tenant', async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey);
      const since = new Date((await stack.infra.db.raw('SELECT clock_timestamp() AS now')).rows[0].now).toISOString();
      for (let i = 0; i < 5; i += 1) await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      const expected: string[] = (
        await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId, type: 'payment.received' }).orderBy(['created_at', 'id'])
      ).map((row: { id: string }) => row.id);
      assert.equal(expected.length, 5);
      // Dispatched before the endpoint exists: it gets them only by recovering.
      await eventually(
        async () =>
          (await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId }).whereNull('dispatched_at').first()) === undefined,
        {
          what: 'events dispatched',
        },
      );
      const endpoint = await createEndpoint(tenant, { url: receiver.url, eventTypes: ['payment.received'] });
      const recover = (after?: string) =>
        call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${endpoint.body.ID}/recover`, {
          apiKey: tenant.apiKey,
          body: { since, ...(after ? { after } : {}) },
        });

      const answers: Array<{ Queued: number; Next: string | null }> = [];
      let next: string | undefined;
      do {
        const answer = await recover(next);
        assert.equal(answer.status, 202);
        answers.push(answer.body);
        next = answer.body.Next ?? undefined;
      } while (next);
      assert.deepEqual(
        answers.map((answer) => answer.Queued),
        [2, 2, 1],
      );
      assert.deepEqual(
        answers.map((answer) => typeof answer.Next),
        ['string', 'string', 'object'],
      );
      assert.equal(answers.at(-1)!.Next, null);
      await eventually(async () => receiver.calls.length >= 5, { what: 'five recovered events' });
      assert.deepEqual(
        envelopes(receiver.calls)
          .map((event) => event.id)
          .sort(),
        [...expected].sort(),
      );

      const limited = await recover();
      assert.equal(limited.status, 429);
      assert.match(limited.body.error, /too many recoveries/);
      assert.equal(receiver.calls.length, 5);
    } finally {
      await receiver.close();
    }
  });

  it('after a rotation overlap ends, only the new secret signs', async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const created = await createEndpoint(tenant, { url: receiver.url, eventTypes: ['payment.received'] });
      const rotated = await call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${created.body.ID}/rotate-secret`, { apiKey: tenant.apiKey });
      assert.equal(rotated.status, 200);
      const overlapEnds = new Date(rotated.body.SecretRotatedUntil).getTime();
      await eventually(async () => Date.now() > overlapEnds, { what: 'the overlap to end' });
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      await eventually(async () => receiver.calls.length >= 1, { what: 'a delivery' });
      const delivery = receiver.calls[0]!;
      assert.equal(signatures(delivery).v1.length, 1);
      assert.ok(signedWith(delivery, rotated.body.Secret));
      assert.ok(!signedWith(delivery, created.body.Secret));
    } finally {
      await receiver.close();
    }
  });
});

describe('payment events of credits a batch confirmed or reversed', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function creditOf(transactionId: string): Promise<{ id: string; transaction_group_id: string }> {
    return eventually(
      () =>
        stack.infra.db('ledger_entries').where({ provider_txn_ref: transactionId, kind: 'payment' }).first('id', 'transaction_group_id'),
      { what: 'the credit' },
    );
  }

  const eventsOf = async (subject: string) =>
    (await stack.infra.db('tenant_events').where({ subject }).orderBy('sequence')).map(
      (row: { type: string; sequence: number; data: Record<string, unknown> }) => [row.type, row.sequence, row.data],
    );

  it('records payment.confirmed and payment.reversed in the transaction of the change, after payment.received', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
    const failed = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 3015, status: 'PAYMENT_FAILED' },
    });
    const [confirmable, reversible] = [await creditOf(paid.body.transactionId), await creditOf(failed.body.transactionId)];
    // No worker: this test's batch is the only one that claims them.
    const batchId = `events-${randomUUID()}`;
    const db = stack.infra.db;
    await db('confirmation_claims')
      .whereIn('entry_id', [confirmable.id, reversible.id])
      .update({ batch_id: batchId, claimed_at: db.fn.now(), started_at: db.fn.now() });
    const round = await stack.services.batchConfirmations.round(batchId, [confirmable.id, reversible.id]);
    const outcomes = new Map(round.results.map((result) => [result.entryId, result.kind === 'settled' ? result.outcome : result.kind]));
    assert.deepEqual([outcomes.get(confirmable.id), outcomes.get(reversible.id)], ['confirmed', 'reversed']);
    const confirmedEvents = await eventsOf(confirmable.transaction_group_id);
    assert.deepEqual(
      confirmedEvents.map(([type, sequence]) => [type, sequence]),
      [
        ['payment.received', 1],
        ['payment.confirmed', 2],
      ],
    );
    assert.deepEqual(confirmedEvents[1]![2], {
      transactionGroupId: confirmable.transaction_group_id,
      accountRef: account.AccountRef,
      amount: '5000.00',
      currency: 'NGN',
    });

    const reversedEvents = await eventsOf(reversible.transaction_group_id);
    assert.deepEqual(
      reversedEvents.map(([type, sequence]) => [type, sequence]),
      [
        ['payment.received', 1],
        ['payment.reversed', 2],
      ],
    );
    const [received, reversed] = reversedEvents.map(([, , data]) => data as { amount: string; reason: string });
    assert.equal(reversed!.amount, received!.amount);
    assert.equal(reversed!.reason, 'provider reports PAYMENT_FAILED');

    // Settled already (its claim taken): nothing changes, so nothing more is recorded.
    await stack.services.batchConfirmations.round(batchId, [confirmable.id]);
    assert.equal((await eventsOf(confirmable.transaction_group_id)).length, 2);
  });
});

describe('webhook endpoints: the address policy at send time', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ ALLOW_PRIVATE_CALLBACK_URLS: 'false', EVENT_DISPATCH_INTERVAL: '100ms' }, { worker: true });
  });
  after(() => stack.close());

  it('refuses to send to an endpoint whose address became private after it was saved, and says so in its health', async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const refusedAtCreation = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
        apiKey: tenant.apiKey,
        body: { url: receiver.url },
      });
      assert.equal(refusedAtCreation.status, 400);
      assert.equal(refusedAtCreation.body.error, 'url must not point at a private or loopback address');
      const created = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
        apiKey: tenant.apiKey,
        body: { url: 'http://93.184.215.14/hook', eventTypes: ['payment.received'] },
      });
      assert.equal(created.status, 201);
      // What a name re-pointed at a private address looks like once saved: the send must check again.
      await stack.infra.db('webhook_endpoints').where({ id: created.body.ID }).update({ url: receiver.url });
      const account = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }));
      const delivery = await eventually(
        () => stack.infra.db('webhook_deliveries').where({ endpoint_id: created.body.ID }).whereNotNull('last_error').first(),
        { what: 'a refused attempt' },
      );
      assert.equal(delivery.last_error, 'refused: private address');
      assert.equal(delivery.callback_url, receiver.url);
      const health = (await call(stack.apiUrl, 'GET', `/v1/webhook-endpoints/${created.body.ID}`, { apiKey: tenant.apiKey })).body.Health;
      assert.equal(health.LastError, 'refused: private address');
      assert.equal(receiver.calls.length, 0);
    } finally {
      await receiver.close();
    }
  });
});

describe('recovering events in commit order', () => {
  // No worker: the recovered deliveries are only queued, which is what is counted here. One event a call.
  let stack: Stack;
  before(async () => {
    stack = await startStack({ WEBHOOK_RECOVER_MAX_EVENTS: '1', RATE_LIMIT_ENDPOINT_RECOVERIES: '100/1h' });
  });
  after(() => stack.close());

  const endpointDisabled = (tenantId: string, subject: string) => ({
    tenantId,
    type: 'webhook_endpoint.disabled' as const,
    data: { endpointId: subject, url: 'https://example.com/hook', failingSince: new Date().toISOString(), reason: 'test' },
  });

  it('an event committed after a page was read, with an earlier id and time than that page, is recovered on a later page', async () => {
    const tenant = await createTenant(stack);
    const since = new Date((await stack.infra.db.raw('SELECT clock_timestamp() AS now')).rows[0].now).toISOString();
    const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
      apiKey: tenant.apiKey,
      body: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const recover = (after?: string) =>
      call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${endpoint.body.ID}/recover`, {
        apiKey: tenant.apiKey,
        body: { since, ...(after ? { after } : {}) },
      });
    const recovered = async (): Promise<string[]> =>
      (await stack.infra.db('webhook_deliveries').where({ endpoint_id: endpoint.body.ID }).orderBy('id').select('tenant_event_id')).map(
        (row: { tenant_event_id: string }) => row.tenant_event_id,
      );

    // A transaction records the first event and stays open; two later events commit meanwhile.
    const slow = await stack.infra.db.transaction();
    let early: string;
    let late: string[];
    try {
      early = await recordEvent(slow, endpointDisabled(tenant.tenantId, randomUUID()));
      late = [];
      for (let i = 0; i < 2; i += 1)
        late.push(await stack.infra.db.transaction((trx) => recordEvent(trx, endpointDisabled(tenant.tenantId, randomUUID()))));
      const first = await recover();
      assert.equal(first.status, 202, first.text);
      assert.ok(first.body.Next, 'the recovery goes on');
      let next: string | null = first.body.Next;
      await slow.commit();
      const answers = [first.body];
      while (next) {
        const answer = await recover(next);
        assert.equal(answer.status, 202, answer.text);
        answers.push(answer.body);
        next = answer.body.Next;
      }
      assert.deepEqual((await recovered()).sort(), [early, ...late].sort(), 'every event of the range, the one committed last included');
      assert.equal(
        answers.reduce((total, answer) => total + answer.Queued, 0),
        3,
        'each once',
      );
    } finally {
      if (!slow.isCompleted()) await slow.rollback();
    }
  });

  it('refuses an after that no recover answer gave', async () => {
    const tenant = await createTenant(stack);
    const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
      apiKey: tenant.apiKey,
      body: { url: 'http://127.0.0.1:9/hooks' },
    });
    const refused = await call(stack.apiUrl, 'POST', `/v1/webhook-endpoints/${endpoint.body.ID}/recover`, {
      apiKey: tenant.apiKey,
      body: { since: new Date().toISOString(), after: randomUUID() },
    });
    assert.deepEqual([refused.status, refused.body.error], [400, 'after must be the Next of an earlier recover answer']);
  });
});
