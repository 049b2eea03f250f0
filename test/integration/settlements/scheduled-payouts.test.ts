import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshAccountNumber, fundedAccount as fundedAccountOf } from '../../helpers/approvals';
import type { ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface BatchView {
  id: string;
  status: string;
  scheduledFor?: string;
  scheduledForLagos?: string;
  items: Array<{ reference: string; merchantTxRef: string | null; status: string; failureReason: string | null }>;
}

interface TransferView {
  merchantTxRef: string;
  status: string;
  createdAt: string;
  attemptCount: number;
  schedule?: { scheduledFor: string; scheduledForLagos: string; state: string; refusal: string | null };
}

/**
 * Payouts on a date: a settle with scheduledFor reserves its amount at once and pays once at that time, through the
 * ordinary settlement underneath; cancelled before then, it releases its amount and never pays.
 */
describe('scheduled payouts', () => {
  let stack: Stack;
  let tenant: TestTenant;

  before(async () => {
    stack = await startStack({}, { worker: true });
    tenant = await createTenant(stack, 'Scheduled Payouts Tenant');
  });
  after(() => stack?.close());

  const fundedAccount = () => fundedAccountOf(stack, tenant.apiKey);

  const balance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body as {
      ledgerBalance: string;
      heldBalance: string;
      reserved: Record<string, string>;
    };

  /** `at` as a Lagos wall-clock time with its offset, as a tenant in Lagos writes it. */
  const lagos = (at: Date) => new Date(at.getTime() + 3_600_000).toISOString().replace('Z', '+01:00');

  const schedule = (account: ProvisionedAccount, amount: string, scheduledFor: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount, bankCode: '058', accountNumber: freshAccountNumber(), scheduledFor },
    });

  const transfer = async (ref: string) =>
    (await call<TransferView>(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body;

  const cancel = (ref: string) => call(stack.apiUrl, 'POST', `/v1/transfers/${ref}/cancel`, { apiKey: tenant.apiKey });

  const scheduledList = async () =>
    ((await call(stack.apiUrl, 'GET', '/v1/transfers?scheduled=true', { apiKey: tenant.apiKey })).body.transfers as TransferView[]).map(
      (view) => view.merchantTxRef,
    );

  const payoutsAtProvider = async (ref: string) =>
    (await call(stack.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts as number;

  const eventsOf = async (ref: string) =>
    (
      (await stack.infra
        .db('tenant_events')
        .where({ tenant_id: tenant.tenantId, subject: ref })
        .orderBy('sequence')
        .select('type')) as Array<{
        type: string;
      }>
    ).map((event) => event.type);

  const workflowEnded = async (ref: string) =>
    (await stack.infra.temporal.workflow.getHandle(`scheduled-payout:${ref}`).describe()).status.name !== 'RUNNING';

  it('waits pending with its amount reserved, then pays once at its time', async () => {
    const account = await fundedAccount();
    const at = new Date(Date.now() + 4_000);
    const made = await schedule(account, '3000.00', lagos(at));
    assert.equal(made.status, 202, made.text);
    const ref = made.body.merchantTxRef as string;
    assert.equal(made.body.status, 'pending');
    assert.deepEqual(made.body.schedule, {
      scheduledFor: at.toISOString(),
      scheduledForLagos: lagos(at),
      state: 'scheduled',
      refusal: null,
    });

    const waiting = await transfer(ref);
    assert.deepEqual([waiting.status, waiting.attemptCount, waiting.schedule?.state], ['pending', 0, 'scheduled']);
    const reserved = await balance(account);
    assert.deepEqual(
      [reserved.ledgerBalance, reserved.heldBalance, reserved.reserved.scheduled_payout],
      ['10000.00', '3000.00', '3000.00'],
      'the amount is reserved at once, not yet debited',
    );
    const overSpendable = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '7000.01', bankCode: '058', accountNumber: freshAccountNumber() },
    });
    assert.deepEqual([overSpendable.status, overSpendable.body.error], [400, 'insufficient funds'], 'what can be spent is 3,000.00 less');
    assert.ok((await scheduledList()).includes(ref), 'listed among the scheduled payouts');

    const paid = await eventually(
      async () => {
        const view = await transfer(ref);
        return view.status === 'success' && view;
      },
      { what: 'the scheduled payout paid' },
    );
    assert.ok(Date.parse(paid.createdAt) >= at.getTime(), `its settlement was made at ${paid.createdAt}, not before ${at.toISOString()}`);
    assert.equal(paid.schedule?.state, 'started');
    assert.equal(await payoutsAtProvider(ref), 1, 'one transfer at the provider');
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.scheduled_payout], ['7000.00', '0.00', '0.00']);
    assert.equal((await scheduledList()).includes(ref), false);
    assert.deepEqual(await eventsOf(ref), ['settlement.scheduled', 'settlement.created', 'settlement.succeeded']);
    assert.equal((await stack.infra.db('settlements').where({ merchant_tx_ref: ref })).length, 1);
  });

  it('cancelled before its time, releases its amount and never pays', async () => {
    const account = await fundedAccount();
    const at = new Date(Date.now() + 3_000);
    const made = await schedule(account, '2500.00', at.toISOString());
    assert.equal(made.status, 202, made.text);
    const ref = made.body.merchantTxRef as string;
    assert.equal((await balance(account)).reserved.scheduled_payout, '2500.00');

    const cancelled = await cancel(ref);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.deepEqual([cancelled.body.status, cancelled.body.schedule.state], ['cancelled', 'cancelled']);
    const released = await balance(account);
    assert.deepEqual([released.ledgerBalance, released.heldBalance, released.reserved.scheduled_payout], ['10000.00', '0.00', '0.00']);
    const again = await cancel(ref);
    assert.deepEqual([again.status, again.body.status], [200, 'cancelled'], 'cancelling a cancelled payout answers it again');

    await eventually(async () => Date.now() > at.getTime() + 1_000 && (await workflowEnded(ref)), {
      what: "the payout's time passed and its workflow ended",
    });
    assert.equal((await transfer(ref)).status, 'cancelled');
    assert.equal(await payoutsAtProvider(ref), 0, 'nothing at the provider');
    assert.equal((await stack.infra.db('settlements').where({ merchant_tx_ref: ref })).length, 0);
    assert.equal((await balance(account)).ledgerBalance, '10000.00');
    assert.deepEqual(await eventsOf(ref), ['settlement.scheduled', 'settlement.cancelled']);
  });

  it("a payout whose workflow was terminated is started again by the convergence check's restart and pays once at its time", async () => {
    const account = await fundedAccount();
    const at = new Date(Date.now() + 6_000);
    const made = await schedule(account, '1200.00', at.toISOString());
    assert.equal(made.status, 202, made.text);
    const ref = made.body.merchantTxRef as string;
    const handle = stack.infra.temporal.workflow.getHandle(`scheduled-payout:${ref}`);
    // The API starts the workflow after its answer (or its outbox drainer does): it may not have started yet.
    await eventually(
      async () =>
        handle.describe().then(
          (described) => described.status.name === 'RUNNING',
          () => false,
        ),
      { what: 'its workflow to start' },
    );
    await handle.terminate('operator terminated it');
    await eventually(async () => (await stack.services.scheduledPayoutRestarts.restartStalled()).restarted === 1, {
      intervalMs: 500,
      what: 'the restart to start the payout again',
    });
    const paid = await eventually(
      async () => {
        const view = await transfer(ref);
        return view.status === 'success' && view;
      },
      { what: 'the restarted payout paid' },
    );
    assert.ok(Date.parse(paid.createdAt) >= at.getTime(), `its settlement was made at ${paid.createdAt}, not before ${at.toISOString()}`);
    assert.equal(await payoutsAtProvider(ref), 1, 'one transfer at the provider');
    assert.equal((await stack.services.scheduledPayoutRestarts.restartStalled()).restarted, 0, 'a started payout is not started again');
  });

  it('refuses a cancel once the payout started, and of a transfer never scheduled', async () => {
    const account = await fundedAccount();
    const made = await schedule(account, '1000.00', new Date(Date.now() + 2_000).toISOString());
    assert.equal(made.status, 202, made.text);
    const ref = made.body.merchantTxRef as string;
    await eventually(async () => (await transfer(ref)).schedule?.state === 'started', { what: 'the payout started' });
    const late = await cancel(ref);
    assert.equal(late.status, 409, late.text);
    assert.match(late.body.error, /started at .* and can no longer be cancelled/);
    await eventually(async () => (await transfer(ref)).status === 'success', { what: 'the started payout paid' });
    assert.equal(await payoutsAtProvider(ref), 1);

    const now = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '100.00', bankCode: '058', accountNumber: freshAccountNumber() },
    });
    assert.equal(now.status, 202, now.text);
    const plain = await cancel(now.body.merchantTxRef);
    assert.equal(plain.status, 409, plain.text);
    assert.match(plain.body.error, /was not scheduled/);
    assert.equal((await cancel('no-such-transfer')).status, 404);
  });

  it('refuses a time not after now, more than 90 days ahead, or without an offset, reserving nothing', async () => {
    const account = await fundedAccount();
    const refusals: Array<[string, RegExp]> = [
      [new Date(Date.now() - 60_000).toISOString(), /scheduledFor must be in the future/],
      [new Date(Date.now() + 91 * 86_400_000).toISOString(), /scheduledFor must be at most 90 days ahead/],
      ['2026-12-24T09:00:00', /scheduledFor must be an RFC 3339 timestamp with a time zone/],
      ['tomorrow', /scheduledFor must be an RFC 3339 timestamp with a time zone/],
    ];
    for (const [scheduledFor, message] of refusals) {
      const refused = await schedule(account, '1000.00', scheduledFor);
      assert.equal(refused.status, 400, `${scheduledFor}: ${refused.text}`);
      assert.match(refused.text, message);
    }
    const short = await schedule(account, '10000.01', new Date(Date.now() + 60_000).toISOString());
    assert.deepEqual([short.status, short.body.error], [400, 'insufficient funds']);
    const untouched = await balance(account);
    assert.deepEqual([untouched.heldBalance, untouched.reserved.scheduled_payout], ['0.00', '0.00']);
    assert.equal(await stack.infra.db('scheduled_payouts').where({ account_id: account.ID }).first(), undefined);
  });

  const item = (account: ProvisionedAccount, amount: string) => ({
    reference: randomUUID(),
    accountRef: account.AccountRef,
    amount,
    bankCode: '058',
    accountNumber: freshAccountNumber(),
  });

  const createBatch = (items: unknown[], scheduledFor: string) =>
    call(stack.apiUrl, 'POST', '/v1/settlement-batches', {
      apiKey: tenant.apiKey,
      body: { items, scheduledFor },
      headers: { 'Idempotency-Key': randomUUID() },
    });

  const batchOf = async (id: string) =>
    (await call<BatchView>(stack.apiUrl, 'GET', `/v1/settlement-batches/${id}`, { apiKey: tenant.apiKey })).body;

  it('a scheduled batch reserves each valid item at once and runs at its time, each item paid once', async () => {
    const account = await fundedAccount();
    const at = new Date(Date.now() + 4_000);
    const items = [item(account, '2000.00'), item(account, '1500.00'), item(account, 'twelve')];
    const made = await createBatch(items, lagos(at));
    assert.equal(made.status, 202, made.text);
    assert.deepEqual([made.body.status, made.body.scheduledFor, made.body.scheduledForLagos], ['scheduled', at.toISOString(), lagos(at)]);
    const reserved = await balance(account);
    assert.deepEqual([reserved.heldBalance, reserved.reserved.scheduled_payout], ['3500.00', '3500.00']);
    assert.deepEqual(
      (await batchOf(made.body.id)).items.map((view) => view.status),
      ['queued', 'queued', 'queued'],
      'no item runs before its time',
    );

    const ended = await eventually(
      async () => {
        const view = await batchOf(made.body.id);
        return view.status === 'completed_with_failures' && view;
      },
      { what: 'the scheduled batch ran' },
    );
    assert.deepEqual(
      ended.items.map((view) => [view.status, view.failureReason]),
      [
        ['success', null],
        ['success', null],
        ['failed', 'invalid amount'],
      ],
    );
    for (const paid of ended.items.slice(0, 2)) {
      const view = await transfer(paid.merchantTxRef!);
      assert.ok(Date.parse(view.createdAt) >= at.getTime(), `item settled at ${view.createdAt}, before ${at.toISOString()}`);
      assert.equal(await payoutsAtProvider(paid.merchantTxRef!), 1);
    }
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.scheduled_payout], ['6500.00', '0.00', '0.00']);
  });

  it('a scheduled batch cancelled before its time releases every item and pays none', async () => {
    const account = await fundedAccount();
    const made = await createBatch([item(account, '4000.00'), item(account, '1000.00')], new Date(Date.now() + 60_000).toISOString());
    assert.equal(made.status, 202, made.text);
    assert.equal((await balance(account)).reserved.scheduled_payout, '5000.00');

    const cancelled = await call(stack.apiUrl, 'POST', `/v1/settlement-batches/${made.body.id}/cancel`, { apiKey: tenant.apiKey });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    const released = await balance(account);
    assert.deepEqual([released.heldBalance, released.reserved.scheduled_payout], ['0.00', '0.00']);
    await eventually(
      async () =>
        (await stack.infra.temporal.workflow.getHandle(`settlement-batch:${made.body.id}`).describe()).status.name === 'COMPLETED',
      { what: "the batch's workflow ended without waiting out its time" },
    );
    const view = await batchOf(made.body.id);
    assert.deepEqual(
      view.items.map((entry) => [entry.status, entry.failureReason, entry.merchantTxRef]),
      [
        ['failed', 'cancelled', null],
        ['failed', 'cancelled', null],
      ],
    );
  });

  it('refuses a batch scheduled in the past or past 90 days, creating nothing', async () => {
    const account = await fundedAccount();
    const past = await createBatch([item(account, '100.00')], new Date(Date.now() - 1_000).toISOString());
    assert.equal(past.status, 400, past.text);
    assert.match(past.body.error, /scheduledFor must be in the future/);
    const far = await createBatch([item(account, '100.00')], new Date(Date.now() + 91 * 86_400_000).toISOString());
    assert.equal(far.status, 400, far.text);
    assert.match(far.body.error, /at most 90 days ahead/);
    assert.equal((await balance(account)).reserved.scheduled_payout, '0.00');
  });
});
