import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { RESTORED_NARRATION, RESTORED_REASON } from '../../../src/reconciliation/reconciliation-repairs';
import { createRetentionRepo } from '../../../src/retention/retention.repo';
import { SETTLEMENT_STATUS } from '../../../src/contracts/search-attributes';
import { ensurePeriodicSchedule, periodicSchedules } from '../../../src/workflow-starts/periodic-schedules';
import {
  eventsFor,
  fundAccount,
  paymentEvent,
  provisionAccount,
  sendProviderEvent,
  statement,
  type ProvisionedAccount,
} from '../../helpers/fixtures';
import { call, eventually, type HttpResponse } from '../../helpers/http';
import { platformRunToEnd } from '../../helpers/platform-run';
import { startReceiver } from '../../helpers/receiver';
import { dashboardSession, dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import { magicAccountNumber } from '../../helpers/sandbox-values';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

interface RunDetail {
  run: Record<string, any>;
  exceptions: Array<Record<string, any>>;
  dayTotalDifferences: Array<Record<string, any>>;
}

/** Starts a tenant's run over [from, now] and waits for it to finish. */
async function reconcile(stack: Stack, tenant: TestTenant, from: Date): Promise<RunDetail> {
  const started = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', {
    apiKey: tenant.apiKey,
    body: { from: from.toISOString() },
  });
  assert.equal(started.status, 202, started.text);
  return finished(stack, tenant, started.body.run.ID);
}

async function finished(stack: Stack, tenant: TestTenant, runId: string): Promise<RunDetail> {
  const detail = await eventually(
    async () => {
      const response = await call(stack.apiUrl, 'GET', `/v1/reconciliation/runs/${runId}`, { apiKey: tenant.apiKey });
      return ['succeeded', 'failed'].includes(response.body.run?.Status) ? response : null;
    },
    { intervalMs: 200, what: `reconciliation run ${runId}` },
  );
  return detail.body;
}

async function entries(stack: Stack, tenant: TestTenant, account: ProvisionedAccount): Promise<Array<Record<string, any>>> {
  const page = await statement(stack, tenant.apiKey, account.AccountRef, '?limit=200');
  return page.body.lines.map((line: { entry: Record<string, any> }) => line.entry);
}

/** The events of one subject as [type, sequence], in sequence order. */
async function eventsOf(stack: Stack, subject: string): Promise<Array<[string, number]>> {
  const rows: Array<{ type: string; sequence: number }> = await stack.infra
    .db('tenant_events')
    .where({ subject })
    .orderBy('sequence')
    .select('type', 'sequence');
  return rows.map((row) => [row.type, row.sequence]);
}

const suppressedPayment = (stack: Stack, accountRef: string, amount: number | string): Promise<HttpResponse> =>
  call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef, amount, suppressWebhook: true } });

describe('reconciliation against the provider', () => {
  let stack: Stack;
  let tenant: TestTenant;

  before(async () => {
    stack = await startStack(
      {
        WORKFLOW_START_RATE: '1000',
        RECONCILIATION_GRACE: '0ms',
        RECONCILIATION_PROVIDER_ATTEMPTS: '2',
        RATE_LIMIT_RECONCILIATION_RUNS: '20/1h',
        CONFIRMATION_WINDOW: '2s',
        CONFIRMATION_POLL_INTERVAL: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
        SETTLEMENT_REFUND_WATCH: '500ms',
        SETTLEMENT_MAX_ATTEMPTS: '1',
      },
      { worker: true },
    );
    tenant = await createTenant(stack, 'Reconciled Tenant');
  });
  after(() => stack?.close());
  afterEach(async () => {
    assert.deepEqual(await createLedgerVerificationRepo(stack.infra.db).problems(), [], 'ledger:verify');
  });

  it('credits exactly the 50 payments whose webhooks the provider never sent, delivers their webhooks, and a second run changes nothing', async () => {
    const receiver = await startReceiver([200]);
    try {
      const from = new Date(Date.now() - 1_000);
      const account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: receiver.url });
      const sent: Array<{ transactionId: string; amount: number }> = [];
      for (let i = 0; i < 50; i += 1) {
        const amount = 1_000 + i;
        const response = await suppressedPayment(stack, account.AccountRef, amount);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.delivery.status, null);
        sent.push({ transactionId: response.body.transactionId, amount });
      }
      assert.equal((await entries(stack, tenant, account)).length, 0, 'the service never heard of them');

      const first = await reconcile(stack, tenant, from);
      assert.equal(first.run.Status, 'succeeded', first.run.Error);
      assert.deepEqual(
        {
          seen: first.run.ProviderTransactions,
          repaired: first.run.Repaired,
          matched: first.run.Matched,
          reported: first.run.Reported,
          lookups: first.run.Lookups,
          outcome: first.run.Outcome,
        },
        { seen: 50, repaired: 50, matched: 0, reported: 0, lookups: 0, outcome: 'repaired' },
      );
      assert.equal(first.exceptions.length, 50);
      assert.ok(
        first.exceptions.every((finding) => finding.Kind === 'missing_credit' && finding.Status === 'repaired' && finding.RepairEntryID),
      );

      const credited = await entries(stack, tenant, account);
      assert.equal(credited.length, 50);
      const byTxn = new Map(credited.map((entry) => [entry.ProviderTxnRef, entry]));
      for (const { transactionId, amount } of sent) {
        const entry = byTxn.get(transactionId);
        assert.ok(entry, `credit for ${transactionId}`);
        assert.deepEqual([entry.Direction, entry.Kind, entry.Amount, entry.Fee], ['credit', 'payment', `${amount - 10}.00`, '10.00']);
      }
      const marked = await stack.infra
        .db('inbound_events')
        .whereIn(
          'transaction_id',
          sent.map((payment) => payment.transactionId),
        )
        .select('flags', 'entry_id');
      assert.equal(marked.length, 50);
      assert.ok(marked.every((event) => event.flags.includes('found_by_reconciliation') && event.entry_id));

      await eventually(async () => receiver.calls.length === 50, { what: '50 payment.received deliveries' });
      const delivered = receiver.calls.map((received) => JSON.parse(received.body) as Record<string, string>);
      assert.ok(
        delivered.every(
          (body) => body.eventType === 'payment.received' && body.accountRef === account.AccountRef && body.status === 'provisional',
        ),
      );
      assert.deepEqual(new Set(delivered.map((body) => body.gross_amount)), new Set(sent.map((payment) => `${payment.amount}.00`)));
      await eventually(async () => (await entries(stack, tenant, account)).every((entry) => entry.Status === 'confirmed'), {
        what: 'the 50 confirmations',
      });

      const second = await reconcile(stack, tenant, from);
      assert.deepEqual(
        {
          status: second.run.Status,
          seen: second.run.ProviderTransactions,
          repaired: second.run.Repaired,
          matched: second.run.Matched,
          reported: second.run.Reported,
          outcome: second.run.Outcome,
        },
        { status: 'succeeded', seen: 50, repaired: 0, matched: 50, reported: 0, outcome: 'clean' },
      );
      assert.equal(second.exceptions.length, 0);
      assert.equal((await entries(stack, tenant, account)).length, 50);
      assert.equal(
        Number((await stack.infra.db('webhook_deliveries').where({ account_id: account.ID }).count('* as count'))[0]!.count),
        50,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(receiver.calls.length, 50);
    } finally {
      await receiver.close();
    }
  });

  it('answers the late webhook of a payment reconciliation credited as an already-processed duplicate; a copy that differs stays a processing error', async () => {
    // A tenant of its own: its payment stays out of the other tests' windows.
    const owner = await createTenant(stack, 'Late Webhook Tenant');
    const from = new Date(Date.now() - 1_000);
    const account = await provisionAccount(stack, owner.apiKey);
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 3025, fee: 25, senderName: 'EMEKA OBI', suppressWebhook: true },
    });
    const transactionId = paid.body.transactionId as string;
    const run = await reconcile(stack, owner, from);
    assert.equal(run.run.Repaired, 1);
    const [credit] = await entries(stack, owner, account);

    // The provider's webhook arrives after all, then its retry, then a copy with another amount.
    const late = paymentEvent({ accountRef: account.AccountRef, transactionId, amount: 3025, fee: 25, senderName: 'EMEKA OBI' });
    for (let copy = 0; copy < 2; copy += 1) assert.equal((await sendProviderEvent(stack, late)).status, 200);
    const recorded = await stack.infra
      .db('inbound_events')
      .where({ request_id: late.requestId })
      .select('category', 'entry_id', 'flags', 'error');
    assert.deepEqual(recorded, [{ category: 'payment', entry_id: credit!.ID, flags: ['credited_by_reconciliation'], error: null }]);
    const different = paymentEvent({ accountRef: account.AccountRef, transactionId, amount: 4025, fee: 25 });
    assert.equal((await sendProviderEvent(stack, different)).status, 200);
    assert.deepEqual(
      (await eventsFor(stack, different.requestId as string)).map((event) => [event.category, event.error]),
      [['processing_error', 'transaction already credited under another request id']],
    );

    const deadLetters = await call(stack.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: owner.apiKey });
    const listed = deadLetters.body.processingErrors.map((error: { RequestID: string }) => error.RequestID);
    assert.ok(listed.includes(different.requestId) && !listed.includes(late.requestId), 'only the differing copy is a processing error');
    assert.equal((await entries(stack, owner, account)).length, 1);

    // Retention deletes events that failed verification; reconciliation's unsigned record of the payment stays.
    await createRetentionRepo(stack.infra.db).deleteUnverifiedEvents(new Date(Date.now() + 86_400_000), 1_000);
    const kept = await stack.infra
      .db('inbound_events')
      .where({ transaction_id: transactionId, event_type: 'reconciliation' })
      .select('entry_id');
    assert.deepEqual(kept, [{ entry_id: credit!.ID }]);
  });

  it('restores a payment reversed because the provider did not know it when the window closed, with a statement that tells the story', async () => {
    const from = new Date(Date.now() - 1_000);
    const account = await provisionAccount(stack, tenant.apiKey);
    // The provider announces the payment, but its lookup does not find it until long after the
    // confirmation window (2 s here): the credit is reversed for time. Its listing shows it SUCCESS.
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: {
        accountRef: account.AccountRef,
        amount: 5025,
        fee: 25,
        senderName: 'ADA OBI',
        narration: 'Invoice 1042',
        lookupLagMs: 600_000,
      },
    });
    assert.equal(paid.status, 200);
    const transactionId = paid.body.transactionId as string;
    await eventually(async () => (await entries(stack, tenant, account)).length === 2, { what: 'the reversal for time' });
    const [credit, reversal] = await entries(stack, tenant, account);
    assert.equal(credit!.Status, 'reversed');
    assert.match(reversal!.Narration, /not (confirmed|known) .*within the confirmation window/);

    const first = await reconcile(stack, tenant, from);
    assert.deepEqual({ repaired: first.run.Repaired, reported: first.run.Reported }, { repaired: 1, reported: 0 });
    assert.equal(first.exceptions[0]!.Kind, 'reversed_credit_restored');
    const story = await statement(stack, tenant.apiKey, account.AccountRef);
    const lines = story.body.lines.map((line: { entry: Record<string, any>; runningBalance: string }) => [
      line.entry.Kind,
      line.entry.Direction,
      line.entry.Amount,
      line.entry.Status,
      line.entry.Narration,
      line.runningBalance,
    ]);
    assert.deepEqual(lines, [
      ['payment', 'credit', '5000.00', 'reversed', 'ADA OBI', '5000.00'],
      ['reversal', 'debit', '5000.00', 'confirmed', reversal!.Narration, '0.00'],
      ['adjustment', 'credit', '5000.00', 'confirmed', RESTORED_NARRATION, '5000.00'],
    ]);
    assert.equal(story.body.lines[2].entry.ReversesEntryID, story.body.lines[1].entry.ID);
    assert.equal(story.body.lines[2].entry.ProviderTxnRef, transactionId);
    // The reversal took the credit's claim with it; the restoration is confirmed as posted: nothing waits for a batch.
    assert.deepEqual(await stack.infra.db('confirmation_claims').where({ provider_txn_ref: transactionId }).select('entry_id'), []);
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.deepEqual([balance.body.ledgerBalance, balance.body.availableBalance], ['5000.00', '5000.00']);
    // The tenant's endpoints hear the whole story of the payment, the restoration last.
    const group = story.body.lines[0].entry.TransactionGroupId;
    assert.deepEqual(await eventsOf(stack, group), [
      ['payment.received', 1],
      ['payment.reversed', 2],
      ['payment.restored', 3],
    ]);
    const restored = await stack.infra.db('tenant_events').where({ subject: group, type: 'payment.restored' }).first('data');
    assert.deepEqual(restored.data, {
      transactionGroupId: group,
      accountRef: account.AccountRef,
      amount: '5000.00',
      currency: 'NGN',
      reason: RESTORED_REASON,
    });

    const second = await reconcile(stack, tenant, from);
    assert.deepEqual(
      { repaired: second.run.Repaired, matched: second.run.Matched, reported: second.run.Reported },
      { repaired: 0, matched: 1, reported: 0 },
    );
    assert.equal((await entries(stack, tenant, account)).length, 3);
  });

  it('reports a confirmed credit the provider refunded; the tenant reads it, the platform operator compensates it once with a debit that leaves the account in deficit', async () => {
    const from = new Date(Date.now() - 1_000);
    const account = await provisionAccount(stack, tenant.apiKey);
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
    await eventually(async () => (await entries(stack, tenant, account))[0]?.Status === 'confirmed', { what: 'the confirmation' });
    const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '3000.00', ...DESTINATION },
    });
    assert.equal(settled.status, 202);
    await eventually(
      async () =>
        (await call(stack.apiUrl, 'GET', `/v1/transfers/${settled.body.merchantTxRef}`, { apiKey: tenant.apiKey })).body.status ===
        'success',
      { what: 'the payout' },
    );
    // The payer's bank takes the payment back after it was confirmed (and after 3,000.00 of it was paid out).
    const refunded = await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${paid.body.transactionId}/status`, {
      body: { status: 'REFUND' },
    });
    assert.equal(refunded.status, 200);

    const first = await reconcile(stack, tenant, from);
    assert.deepEqual(
      { reported: first.run.Reported, alerts: first.run.Alerts, repaired: first.run.Repaired, outcome: first.run.Outcome },
      { reported: 1, alerts: 1, repaired: 0, outcome: 'alert' },
    );
    const [finding] = first.exceptions;
    assert.deepEqual(
      [finding!.Kind, finding!.Severity, finding!.Status, finding!.AccountRef, finding!.Details.providerStatus],
      ['credit_failed_at_provider', 'alert', 'open', account.AccountRef, 'REFUND'],
    );
    assert.equal((await entries(stack, tenant, account)).length, 2, 'nothing is changed automatically');

    // Money the platform already paid out against this credit: the tenant reads the finding and cannot decide it.
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const refused = await call(stack.apiUrl, 'POST', `/auth/reconciliation/exceptions/${finding!.ID}/resolve`, {
      cookie: operator.cookie,
      body: { note: 'not ours to decide' },
    });
    assert.deepEqual(
      [refused.status, refused.body.error],
      [
        403,
        "only the platform operator decides a credit_failed_at_provider finding (money left the platform's float without a debit); the tenant sees it read-only",
      ],
    );
    const readOnly = await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions/${finding!.ID}`, { cookie: operator.cookie });
    assert.deepEqual([readOnly.status, readOnly.body.exception.Status, readOnly.body.exception.PlatformDecides], [200, 'open', true]);

    // The platform operator (CLI) posts the compensating debit, once.
    const platform = { via: 'cli' as const, tenantId: tenant.tenantId };
    const compensated = await stack.services.reconciliation.compensate(platform, finding!.ID, 'payer bank recalled the funds, ticket 4411');
    assert.deepEqual(
      [compensated.entry.kind, compensated.entry.direction, compensated.entry.amount, compensated.entry.reversesEntryId],
      ['adjustment', 'debit', 500_000n, finding!.EntryID],
    );
    assert.deepEqual(
      [
        compensated.finding.status,
        compensated.finding.resolution,
        compensated.finding.resolutionNote,
        compensated.finding.resolvedVia,
        compensated.finding.repairEntryId,
      ],
      ['resolved', 'compensated', 'payer bank recalled the funds, ticket 4411', 'cli', compensated.entry.id],
    );
    await assert.rejects(
      stack.services.reconciliation.compensate(platform, finding!.ID, 'twice'),
      (error: { kind?: string }) => error.kind === 'conflict',
    );
    const group = compensated.entry.transactionGroupId;
    assert.deepEqual(await eventsOf(stack, group), [
      ['payment.received', 1],
      ['payment.confirmed', 2],
      ['payment.compensated', 3],
    ]);
    const told = await stack.infra.db('tenant_events').where({ subject: group, type: 'payment.compensated' }).first('data');
    assert.deepEqual(told.data, {
      transactionGroupId: group,
      accountRef: account.AccountRef,
      amount: '5000.00',
      currency: 'NGN',
      reason: 'the provider reports this payment REFUND',
    });

    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.deepEqual([balance.body.ledgerBalance, balance.body.availableBalance], ['-3000.00', '-3000.00']);
    const flagged = await stack.infra.db('virtual_accounts').where({ id: account.ID }).first('deficit_since');
    assert.ok(flagged.deficit_since, 'the account is flagged in deficit');
    const refusedSettlement = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '1.00', ...DESTINATION },
    });
    assert.deepEqual([refusedSettlement.status, refusedSettlement.body.error], [400, 'insufficient funds']);

    const second = await reconcile(stack, tenant, from);
    assert.deepEqual({ reported: second.run.Reported, repaired: second.run.Repaired }, { reported: 0, repaired: 0 });
  });

  /** A payment the provider announces but whose lookup finds it only long after the window: reversed for time, then restorable. */
  async function reversedForTime(account: ProvisionedAccount, body: Record<string, unknown>, owner: TestTenant): Promise<string> {
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, lookupLagMs: 600_000, ...body },
    });
    assert.equal(paid.body.delivery.status, 200, paid.text);
    await eventually(async () => (await entries(stack, owner, account)).some((entry) => entry.Kind === 'reversal'), {
      what: 'the reversal for time',
    });
    return paid.body.transactionId as string;
  }

  it("judges a restored payment as a new one: its dynamic account's mismatch is held and returned to the payer", async () => {
    const owner = await createTenant(stack, 'Checkout Tenant');
    const from = new Date(Date.now() - 1_000);
    const account = await provisionAccount(stack, owner.apiKey, { expectedAmount: '100.00', amountPolicy: 'exact', onMismatch: 'return' });
    // 60.00 of the 100.00 expected (0.50 kept by the provider): held in full to return while provisional, freed by the reversal.
    await reversedForTime(account, { amount: 60, fee: 0.5, senderAccountNumber: '0123456789' }, owner);
    const run = await reconcile(stack, owner, from);
    assert.deepEqual({ repaired: run.run.Repaired, reported: run.run.Reported }, { repaired: 1, reported: 0 });

    // The returns Schedule may already have posted the return's debit after it: the restoration is the adjustment line.
    const restored = (await entries(stack, owner, account)).find((entry) => entry.Kind === 'adjustment')!;
    assert.deepEqual([restored.Kind, restored.Direction, restored.Amount, restored.Status], ['adjustment', 'credit', '59.50', 'confirmed']);
    assert.deepEqual(
      [restored.ExpectedAmount, restored.AmountReceived, restored.Variance, restored.MismatchAction],
      ['100.00', '60.00', 'under', 'return'],
      'the statement line carries the judgement',
    );
    const hold = await stack.infra.db('ledger_reservations').where({ owner_id: restored.ID }).first('amount', 'kind', 'reason');
    assert.deepEqual([hold?.kind, hold?.reason, hold?.amount], ['payment_mismatch', 'amount_mismatch', '5950']);
    // The returns Schedule pays it back to the payer, as it does a mismatch first credited by its webhook.
    await eventually(
      async () => (await stack.infra.db('dynamic_account_returns').where({ entry_id: restored.ID }).first('status'))?.status === 'returned',
      { what: 'the return of the restored payment' },
    );
    const [settlement] = await stack.infra.db('settlements').where({ account_id: account.ID }).select('amount');
    assert.equal(settlement.amount, '5950');
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: owner.apiKey });
    assert.deepEqual([balance.body.ledgerBalance, balance.body.heldBalance], ['0.00', '0.00']);
    const closed = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: owner.apiKey });
    assert.equal(closed.body.Status, 'active', 'a payment the policy refuses does not close the account');
  });

  it('judges a restored payment as a new one: held over the KYC limits, split by its rule, and closing its checkout account', async () => {
    const owner = await createTenant(stack, 'Marketplace Tenant');
    const from = new Date(Date.now() - 1_000);
    const [checkout, seller, large] = [
      await provisionAccount(stack, owner.apiKey, { expectedAmount: '5025.00' }),
      await provisionAccount(stack, owner.apiKey),
      await provisionAccount(stack, owner.apiKey),
    ];
    const rule = await call(stack.apiUrl, 'PUT', `/v1/accounts/${checkout.AccountRef}/split-rule`, {
      apiKey: owner.apiKey,
      body: { parts: [{ toAccountRef: seller.AccountRef, percent: 50 }], feeBearer: 'account' },
    });
    assert.equal(rule.status, 200, rule.text);
    const paymentRef = await reversedForTime(checkout, { amount: 5025, fee: 25 }, owner);
    // Over the tier-1 single-credit limit of 50,000.00.
    await reversedForTime(large, { amount: 60_050, fee: 50 }, owner);
    const run = await reconcile(stack, owner, from);
    assert.deepEqual({ repaired: run.run.Repaired, reported: run.run.Reported }, { repaired: 2, reported: 0 });

    const restored = (await entries(stack, owner, checkout)).find((entry) => entry.Kind === 'adjustment')!;
    const checkoutLines = (await entries(stack, owner, checkout)).map((entry) => [entry.Kind, entry.Direction, entry.Amount, entry.Status]);
    assert.deepEqual(checkoutLines, [
      ['payment', 'credit', '5000.00', 'reversed'],
      ['reversal', 'debit', '5000.00', 'confirmed'],
      ['adjustment', 'credit', '5000.00', 'confirmed'],
      ['transfer', 'debit', '2512.50', 'confirmed'],
    ]);
    const [toSeller] = await entries(stack, owner, seller);
    assert.deepEqual([toSeller!.Kind, toSeller!.Amount, toSeller!.Narration], ['transfer', '2512.50', `split of payment ${paymentRef}`]);
    const moves = await stack.infra.db('split_moves').where({ payment_entry_id: restored.ID }).select('transfer_id', 'not_moved_reason');
    assert.deepEqual(
      moves.map((move: { transfer_id: string | null; not_moved_reason: string | null }) => [
        move.transfer_id !== null,
        move.not_moved_reason,
      ]),
      [[true, null]],
    );
    const closed = await call(stack.apiUrl, 'GET', `/v1/accounts/${checkout.AccountRef}`, { apiKey: owner.apiKey });
    assert.equal(closed.body.Status, 'expired', 'the restored payment completed the checkout');

    const held = await call(stack.apiUrl, 'GET', `/v1/accounts/${large.AccountRef}/balance`, { apiKey: owner.apiKey });
    assert.deepEqual([held.body.ledgerBalance, held.body.heldBalance], ['60000.00', '10000.00']);
    const books = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: owner.apiKey });
    assert.equal(books.body.total, '0.00');
  });

  it("takes a compensated split payment's parts back from the receivers first, one receiver going into deficit for what it spent", async () => {
    const owner = await createTenant(stack, 'Split Tenant');
    const from = new Date(Date.now() - 1_000);
    const [shop, seller] = [await provisionAccount(stack, owner.apiKey), await provisionAccount(stack, owner.apiKey)];
    const rule = await call(stack.apiUrl, 'PUT', `/v1/accounts/${shop.AccountRef}/split-rule`, {
      apiKey: owner.apiKey,
      body: { parts: [{ toAccountRef: seller.AccountRef, percent: 50 }], feeBearer: 'split' },
    });
    assert.equal(rule.status, 200, rule.text);
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: shop.AccountRef, amount: 5025, fee: 25 },
    });
    await eventually(async () => (await entries(stack, owner, seller)).length === 1, { what: 'the split at confirmation' });
    // The seller spends 2,000.00 of its 2,500.00.
    const spent = await call(stack.apiUrl, 'POST', `/v1/accounts/${seller.AccountRef}/settle`, {
      apiKey: owner.apiKey,
      body: { amount: '2000.00', ...DESTINATION },
    });
    assert.equal(spent.status, 202, spent.text);
    await eventually(
      async () =>
        (await call(stack.apiUrl, 'GET', `/v1/transfers/${spent.body.merchantTxRef}`, { apiKey: owner.apiKey })).body.status === 'success',
      { what: 'the payout' },
    );
    assert.equal(
      (await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${paid.body.transactionId}/status`, { body: { status: 'REFUND' } })).status,
      200,
    );
    const run = await reconcile(stack, owner, from);
    const finding = run.exceptions.find((one) => one.Kind === 'credit_failed_at_provider')!;
    assert.ok(finding, JSON.stringify(run.exceptions));

    const compensated = await stack.services.reconciliation.compensate(
      { via: 'cli', tenantId: owner.tenantId },
      finding.ID,
      'payer bank recalled it',
    );
    assert.deepEqual([compensated.entry.direction, compensated.entry.amount], ['debit', 500_000n]);
    const lines = async (account: ProvisionedAccount) =>
      (await entries(stack, owner, account)).map((entry) => [entry.Kind, entry.Direction, entry.Amount, entry.Status]);
    assert.deepEqual(await lines(shop), [
      ['payment', 'credit', '5000.00', 'confirmed'],
      ['transfer', 'debit', '2500.00', 'confirmed'],
      ['adjustment', 'credit', '2500.00', 'confirmed'],
      ['adjustment', 'debit', '5000.00', 'confirmed'],
    ]);
    assert.deepEqual(await lines(seller), [
      ['transfer', 'credit', '2500.00', 'confirmed'],
      ['settlement', 'debit', '2000.00', 'confirmed'],
      ['adjustment', 'debit', '2500.00', 'confirmed'],
    ]);
    // One balanced transaction: the seller gives its part back, the shop the rest, and the provider's money leaves clearing.
    const [sellerBack, shopBack, shopCompensation] = [
      (await entries(stack, owner, seller)).at(-1)!,
      ...(await entries(stack, owner, shop)).slice(2),
    ];
    const transactionIds = await stack.infra
      .db('ledger_entries')
      .whereIn('id', [sellerBack.ID, shopBack!.ID, shopCompensation!.ID])
      .distinct('transaction_id');
    assert.equal(transactionIds.length, 1);
    const balance = async (account: ProvisionedAccount) =>
      (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: owner.apiKey })).body;
    assert.equal((await balance(shop)).ledgerBalance, '0.00');
    assert.deepEqual([(await balance(seller)).ledgerBalance, (await balance(seller)).inDeficit], ['-2000.00', true]);
    const flagged = await stack.infra.db('virtual_accounts').where({ id: seller.ID }).first('deficit_since');
    assert.ok(flagged.deficit_since, 'the receiver that spent its part is flagged in deficit');
    const [move] = await stack.infra.db('split_moves').where({ from_account_id: shop.ID }).select('taken_back_entry_id');
    assert.equal(move.taken_back_entry_id, sellerBack.ID, 'the part taken back is recorded');
    const books = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: owner.apiKey });
    assert.equal(books.body.total, '0.00');
    const verify = JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] };
    assert.deepEqual(verify.problems, []);
  });

  it('refunds a settlement the provider refunded after success when every event of it was lost', async () => {
    // A provider whose webhooks never arrive (a misconfigured URL): only polling and reconciliation see anything.
    const lost = await startStack(
      {
        SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/webhooks/provider',
        RECONCILIATION_GRACE: '0ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
        SETTLEMENT_REFUND_WATCH: '200ms',
      },
      { worker: true },
    );
    try {
      const owner = await createTenant(lost, 'Lost Events Tenant');
      const account = await provisionAccount(lost, owner.apiKey);
      const funding = await fundAccount(lost, account.ID, 1_000_000n);
      // After the funding credit, which the provider does not know (see the window of the test below).
      const from = new Date(funding.createdAt.getTime() + 1);
      const settled = await call(lost.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: owner.apiKey,
        body: { amount: '2500.00', ...DESTINATION },
      });
      assert.equal(settled.status, 202);
      const merchantTxRef: string = settled.body.merchantTxRef;
      await eventually(
        async () => (await call(lost.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey: owner.apiKey })).body.status === 'success',
        { what: 'the payout' },
      );
      await eventually(
        async () => (await lost.infra.temporal.workflow.getHandle(`settlement:${merchantTxRef}`).describe()).status.name === 'COMPLETED',
        { what: 'the end of the refund watch' },
      );
      const refunded = await call(lost.sandboxUrl, 'POST', `/sandbox/transfers/${merchantTxRef}-1/refund`, {});
      assert.equal(refunded.status, 200);
      assert.equal(
        (await call(lost.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey: owner.apiKey })).body.status,
        'success',
        'nobody told the service',
      );
      const settlementStatus = async (): Promise<string | undefined> =>
        (await lost.infra.temporal.workflow.getHandle(settlementWorkflowId(merchantTxRef)).describe()).typedSearchAttributes.get(
          SETTLEMENT_STATUS,
        );
      assert.equal(await settlementStatus(), 'success');

      const run = await reconcile(lost, owner, from);
      assert.deepEqual(
        { repaired: run.run.Repaired, reported: run.run.Reported, lookups: run.run.Lookups },
        { repaired: 1, reported: 0, lookups: 1 },
      );
      assert.deepEqual([run.exceptions[0]!.Kind, run.exceptions[0]!.MerchantTxRef], ['settlement_refunded', merchantTxRef]);
      assert.equal((await call(lost.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey: owner.apiKey })).body.status, 'refunded');
      // Through the settlement's own refund rule: the attempt that had succeeded is the one refunded.
      const attempts = await lost.infra
        .db('settlement_attempts')
        .where({ provider_ref: `${merchantTxRef}-1` })
        .select('outcome');
      assert.deepEqual(attempts, [{ outcome: 'refunded' }]);
      // The refund workflow it started keeps SettlementStatus equal to the database.
      await eventually(async () => (await settlementStatus()) === 'refunded', { what: 'SettlementStatus refunded' });
      const balance = await call(lost.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: owner.apiKey });
      assert.equal(balance.body.ledgerBalance, '10000.00');
      const again = await reconcile(lost, owner, from);
      assert.deepEqual({ repaired: again.run.Repaired, matched: again.run.Matched }, { repaired: 0, matched: 1 });
    } finally {
      await lost.close();
    }
  });

  it('only reports an amount difference, a payout the ledger failed but the provider paid, and a settlement stuck long after its attempts', async () => {
    const owner = await createTenant(stack, 'Reported Tenant');
    const account = await provisionAccount(stack, owner.apiKey);
    const funding = await fundAccount(stack, account.ID, 1_000_000n);
    // The window starts after the funding credit (the provider does not know it): a millisecond past its
    // time, which Postgres keeps to the microsecond and a Date to the millisecond.
    const from = new Date(funding.createdAt.getTime() + 1);
    // A confirmed credit for 4,025.00 gross that the provider shows as 5,025.00.
    const transactionId = `API-VACT_TRA-DIFF1-${randomUUID()}`;
    await stack.infra.db.transaction((trx) =>
      stack.services.postingEngine.post(trx, account.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: 400_000n,
          fee: 2_500n,
          status: 'confirmed',
          narration: 'ADA OBI',
          providerTxnRef: transactionId,
          transactionGroupId: randomUUID(),
        },
      ]),
    );
    stack.sandbox.state.payments.set(transactionId, {
      transactionId,
      accountRef: account.AccountRef,
      amountKobo: 502_500n,
      feeKobo: 2_500n,
      status: 'SUCCESS',
      senderName: 'ADA OBI',
      narration: '',
      createdAt: new Date().toISOString(),
      lookupLagMs: 0,
      processingMs: 0,
      notFoundLookups: 0,
      lookups: 0,
    });
    // A payout that failed here (every submission to ...1111 fails) but that the provider paid after all.
    const failed = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: owner.apiKey,
      body: { amount: '100.00', bankCode: '058', accountNumber: magicAccountNumber('failsEverySubmission') },
    });
    await eventually(
      async () =>
        (await call(stack.apiUrl, 'GET', `/v1/transfers/${failed.body.merchantTxRef}`, { apiKey: owner.apiKey })).body.status === 'failed',
      { what: 'the failed payout' },
    );
    stack.sandbox.state.transferByReference(`${failed.body.merchantTxRef}-1`)!.status = 'SUCCESS';
    // A payout still processing, requested three hours ago.
    const stuck = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: owner.apiKey,
      body: { amount: '200.00', bankCode: '058', accountNumber: magicAccountNumber('processingThenSucceeds') },
    });
    // Accepted by the provider (the last change the workflow makes before it polls), then aged.
    await eventually(
      async () =>
        (await stack.infra.db('settlements').where({ merchant_tx_ref: stuck.body.merchantTxRef }).first('provider_transfer_id'))
          ?.provider_transfer_id,
      {
        what: 'the accepted payout',
      },
    );
    await stack.infra
      .db('settlements')
      .where({ merchant_tx_ref: stuck.body.merchantTxRef })
      .update({ created_at: stack.infra.db.raw("now() - interval '3 hours'") });
    const balanceBefore = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: owner.apiKey });

    const first = await reconcile(stack, owner, from);
    assert.deepEqual(
      { repaired: first.run.Repaired, reported: first.run.Reported, alerts: first.run.Alerts, outcome: first.run.Outcome },
      { repaired: 0, reported: 3, alerts: 1, outcome: 'alert' },
    );
    const byKind = Object.fromEntries(first.exceptions.map((finding) => [finding.Kind, finding]));
    assert.deepEqual(Object.keys(byKind).sort(), ['payment_mismatch', 'settlement_paid_not_debited', 'settlement_stuck']);
    assert.deepEqual(
      [byKind.payment_mismatch.Details.providerAmount, byKind.payment_mismatch.Details.ledgerAmount, byKind.payment_mismatch.Severity],
      ['5025.00', '4025.00', 'warning'],
    );
    assert.deepEqual(
      [byKind.settlement_paid_not_debited.MerchantTxRef, byKind.settlement_paid_not_debited.Severity],
      [failed.body.merchantTxRef, 'alert'],
    );
    assert.deepEqual(
      [byKind.settlement_stuck.MerchantTxRef, byKind.settlement_stuck.Details.settlementStatus],
      [stuck.body.merchantTxRef, 'processing'],
    );
    assert.equal(first.run.DaysDiffering, 1);
    assert.deepEqual(
      first.dayTotalDifferences.map((day: Record<string, unknown>) => [
        day.AccountRef,
        day.ProviderGross,
        day.ProviderFee,
        day.LedgerGross,
        day.LedgerFee,
      ]),
      [[account.AccountRef, '5025.00', '25.00', '4025.00', '25.00']],
    );
    const balanceAfter = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: owner.apiKey });
    assert.deepEqual({ ...balanceAfter.body, asOf: null }, { ...balanceBefore.body, asOf: null }, 'nothing moved');

    const second = await reconcile(stack, owner, from);
    assert.equal(second.run.Reported, 3);
    assert.deepEqual(
      second.exceptions.map((finding) => [finding.ID, finding.Occurrences]).sort(),
      first.exceptions.map((finding) => [finding.ID, 2]).sort(),
    );
    assert.equal(
      Number((await stack.infra.db('reconciliation_exceptions').where({ tenant_id: owner.tenantId }).count('* as count'))[0]!.count),
      3,
    );
  });

  it("reports the platform's own findings apart: a payment to an account the service does not have, and the wallet against the ledger", async () => {
    const stranger = await call(stack.sandboxUrl, 'POST', '/v1/auth/token/issue', {
      body: { grant_type: 'client_credentials', client_id: 'c', client_secret: 's' },
    });
    const created = await call(stack.sandboxUrl, 'POST', '/v1/accounts/virtual', {
      headers: { authorization: `Bearer ${stranger.body.data.access_token}`, accountId: 'acct' },
      body: { accountRef: `va_nobody_${Date.now()}`, accountName: 'Nobody Here', currency: 'NGN' },
    });
    assert.equal(created.status, 200);
    const from = new Date(Date.now() - 1_000);
    const paid = await suppressedPayment(stack, created.body.data.accountRef, 1500);
    const done = await platformRunToEnd(stack, from);
    assert.ok(done.wallet, 'the wallet check ran');
    const platform = await stack.services.reconciliation.listExceptions(null, { status: 'open' }, null, 100);
    const unknown = platform.find((finding) => finding.kind === 'unknown_account' && finding.subject === paid.body.transactionId);
    assert.ok(unknown, 'the payment to an unknown account is reported');
    assert.deepEqual(
      [unknown.severity, unknown.tenantId, unknown.details.providerAccountNumber],
      ['alert', null, created.body.data.bankAccountNumber],
    );
    const wallet = platform.find((finding) => finding.kind === 'wallet_difference');
    assert.ok(wallet, "the wallet differs (this database holds other stacks' accounts too)");
    assert.deepEqual(Object.keys(wallet.details).sort(), ['heldPerBooks', 'unassignedMisdirected', 'unexplained', 'walletBalance']);
    // ledger:verify shows what this run saw of the wallet against the books (it reports it; it does not fail on it).
    const verified = await promisify(execFile)(
      process.execPath,
      [path.resolve(__dirname, '../../../src/main/cli.js'), 'ledger:verify', '--json'],
      {
        env: process.env,
      },
    ).catch((error: { stdout: string }) => error);
    assert.deepEqual(JSON.parse(verified.stdout).wallet, { at: done.finishedAt!.toISOString(), ...done.wallet });
    const cookie = await dashboardSession(stack, tenant.tenantId);
    const seen = await call(stack.apiUrl, 'GET', '/auth/reconciliation/exceptions', { cookie });
    assert.ok(seen.body.exceptions.every((finding: { ID: string }) => finding.ID !== unknown.id && finding.ID !== wallet.id));
  });

  it('never shows one tenant the runs or findings of another', async () => {
    const other = await createTenant(stack, 'Other Tenant');
    const from = new Date(Date.now() - 1_000);
    const account = await provisionAccount(stack, other.apiKey);
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
    await eventually(async () => (await entries(stack, other, account))[0]?.Status === 'confirmed', { what: 'the confirmation' });
    await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${paid.body.transactionId}/status`, { body: { status: 'PAYMENT_FAILED' } });
    const theirs = await reconcile(stack, other, from);
    assert.equal(theirs.exceptions.length, 1);
    const findingId: string = theirs.exceptions[0]!.ID;
    const runId: string = theirs.run.ID;

    const ownRuns = await call(stack.apiUrl, 'GET', '/v1/reconciliation/runs', { apiKey: tenant.apiKey });
    assert.equal(ownRuns.status, 200);
    assert.ok(ownRuns.body.runs.every((run: { ID: string }) => run.ID !== runId));
    assert.equal((await call(stack.apiUrl, 'GET', `/v1/reconciliation/runs/${runId}`, { apiKey: tenant.apiKey })).status, 404);
    const cookie = await dashboardSession(stack, tenant.tenantId);
    const dashboardRun = await call(stack.apiUrl, 'GET', `/auth/reconciliation/runs/${runId}`, { cookie });
    assert.deepEqual([dashboardRun.status, dashboardRun.body.error], [404, 'reconciliation run not found']);
    const findings = await call(stack.apiUrl, 'GET', '/auth/reconciliation/exceptions', { cookie });
    assert.ok(findings.body.exceptions.every((finding: { ID: string }) => finding.ID !== findingId));
    const dashboardFinding = await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions/${findingId}`, { cookie });
    assert.deepEqual([dashboardFinding.status, dashboardFinding.body.error], [404, 'reconciliation exception not found']);
    const response = await call(stack.apiUrl, 'POST', `/auth/reconciliation/exceptions/${findingId}/resolve`, {
      cookie,
      body: { note: 'not mine' },
    });
    assert.deepEqual([response.status, response.body.error], [404, 'reconciliation exception not found']);
    const theirCookie = await dashboardSession(stack, other.tenantId);
    const open = await call(stack.apiUrl, 'GET', '/auth/reconciliation/exceptions?status=open', { cookie: theirCookie });
    assert.deepEqual(
      open.body.exceptions.map((finding: { ID: string }) => finding.ID),
      [findingId],
    );
    // The platform operator names the finding's tenant at the CLI: another tenant's id does not find it.
    await assert.rejects(
      stack.services.reconciliation.resolve({ via: 'cli', tenantId: tenant.tenantId }, findingId, 'not theirs'),
      (error: { kind?: string }) => error.kind === 'not_found',
    );
    const resolved = await stack.services.reconciliation.resolve(
      { via: 'cli', tenantId: other.tenantId },
      findingId,
      'payment failed at the payer bank; customer told',
    );
    assert.deepEqual([resolved.status, resolved.resolution], ['resolved', 'noted']);
  });

  it("gives the dashboard who asked for a run, its workflow, findings by kind and status, and one finding with the tenant's runs that met it", async () => {
    const owner = await createTenant(stack, 'Dashboard Reads Tenant');
    const from = new Date(Date.now() - 1_000);
    const account = await provisionAccount(stack, owner.apiKey);
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 3010 } });
    await eventually(async () => (await entries(stack, owner, account))[0]?.Status === 'confirmed', { what: 'the confirmation' });
    await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${paid.body.transactionId}/status`, { body: { status: 'PAYMENT_FAILED' } });

    const operator = await dashboardUser(stack, owner.tenantId, 'operator');
    const asked = await call(stack.apiUrl, 'POST', '/auth/reconciliation/runs', {
      cookie: operator.cookie,
      body: { from: from.toISOString() },
    });
    assert.equal(asked.status, 202, asked.text);
    assert.deepEqual([asked.body.run.Trigger, asked.body.run.RequestedBy], ['operator', operator.email]);
    const byOperator = await finished(stack, owner, asked.body.run.ID);
    assert.equal(byOperator.run.RequestedBy, operator.email, 'the API shows who asked too');
    const byApiKey = await reconcile(stack, owner, from);
    assert.deepEqual([byApiKey.run.Trigger, byApiKey.run.RequestedBy], ['tenant', null]);
    const listed = await call(stack.apiUrl, 'GET', '/auth/reconciliation/runs', { cookie: operator.cookie });
    assert.deepEqual(
      listed.body.runs.map((run: { ID: string; RequestedBy: string | null }) => [run.ID, run.RequestedBy]),
      [
        [byApiKey.run.ID, null],
        [byOperator.run.ID, operator.email],
      ],
    );

    const detail = await call(stack.apiUrl, 'GET', `/auth/reconciliation/runs/${byOperator.run.ID}`, { cookie: operator.cookie });
    assert.equal(detail.body.workflow.workflowId, `reconciliation:${byOperator.run.ID}`);
    // The Temporal UI shows every tenant's workflows: the platform operator's, never linked for a tenant.
    assert.deepEqual(detail.body.workflow, { workflowId: `reconciliation:${byOperator.run.ID}` });
    assert.ok(!detail.text.includes(stack.config.TEMPORAL_UI_URL), 'no link into the Temporal UI');
    assert.equal(
      (await call(stack.apiUrl, 'GET', `/v1/reconciliation/runs/${byOperator.run.ID}`, { apiKey: owner.apiKey })).body.workflow,
      undefined,
      'the API answers as before',
    );

    const [finding] = byOperator.exceptions;
    assert.equal(finding!.Kind, 'credit_failed_at_provider');
    const list = async (search: string) => {
      const response = await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions${search}`, { cookie: operator.cookie });
      assert.equal(response.status, 200, response.text);
      return response.body.exceptions.map((found: { ID: string }) => found.ID);
    };
    assert.deepEqual(await list('?kind=credit_failed_at_provider'), [finding!.ID]);
    assert.deepEqual(await list('?kind=credit_failed_at_provider&status=open'), [finding!.ID]);
    assert.deepEqual(await list('?kind=payment_mismatch'), []);
    assert.deepEqual(await list('?kind=credit_failed_at_provider&status=resolved'), []);
    const badKind = await call(stack.apiUrl, 'GET', '/auth/reconciliation/exceptions?kind=everything', { cookie: operator.cookie });
    assert.equal(badKind.status, 400);
    assert.match(badKind.body.error, /^kind must be one of missing_credit, /);
    const badStatus = await call(stack.apiUrl, 'GET', '/auth/reconciliation/exceptions?status=closed', { cookie: operator.cookie });
    assert.deepEqual([badStatus.status, badStatus.body.error], [400, 'status must be open, repaired or resolved']);

    const one = await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions/${finding!.ID}`, { cookie: operator.cookie });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      [one.body.exception.ID, one.body.exception.Occurrences, one.body.exception.AccountRef],
      [finding!.ID, 2, account.AccountRef],
    );
    assert.deepEqual(
      one.body.runs.map((run: { ID: string }) => run.ID),
      [byApiKey.run.ID, byOperator.run.ID],
      'the runs that met it, newest first',
    );
    const viewer = await dashboardSession(stack, owner.tenantId, 'viewer');
    assert.equal(
      (await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions/${finding!.ID}`, { cookie: viewer })).status,
      200,
      'a viewer reads a finding',
    );
    for (const id of ['not-a-uuid', randomUUID()]) {
      const missing = await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions/${id}`, { cookie: operator.cookie });
      assert.deepEqual([missing.status, missing.body.error], [404, 'reconciliation exception not found'], id);
    }
    const refused = await call(stack.apiUrl, 'POST', `/auth/reconciliation/exceptions/${finding!.ID}/resolve`, {
      cookie: operator.cookie,
      body: { note: 'payer bank failed it; customer told' },
    });
    assert.equal(refused.status, 403, refused.text);
    assert.deepEqual(await list('?kind=credit_failed_at_provider&status=open'), [finding!.ID], 'still open after the refusal');
    await stack.services.reconciliation.resolve(
      { via: 'cli', tenantId: owner.tenantId },
      finding!.ID,
      'payer bank failed it; customer told',
    );
    assert.deepEqual(await list('?kind=credit_failed_at_provider&status=resolved'), [finding!.ID]);
    assert.deepEqual(await list('?status=open'), []);
  });

  it('answers bad windows with 400, keeps runs one at a time, and rate-limits them with Retry-After (refusals not counted)', async () => {
    const limited = await createTenant(stack, 'Busy Tenant');
    const post = (body: unknown) => call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', { apiKey: limited.apiKey, body });
    const now = Date.now();
    for (const [body, error] of [
      [{ from: 'yesterday' }, 'from must be an ISO 8601 timestamp'],
      [{ from: new Date(now).toISOString(), to: new Date(now - 60_000).toISOString() }, 'from must be before to'],
      [{ to: new Date(now + 3_600_000).toISOString() }, 'to cannot be in the future'],
      [{ from: new Date(now - 40 * 86_400_000).toISOString() }, 'the window cannot be longer than 31 days'],
    ] as const) {
      const response = await post(body);
      assert.deepEqual([response.status, response.body.error], [400, error], JSON.stringify(body));
    }
    const [one, two] = await Promise.all([post({}), post(undefined)]);
    assert.deepEqual([one!.status, two!.status].sort(), [202, 409]);
    const accepted = one!.status === 202 ? one! : two!;
    await finished(stack, limited, accepted.body.run.ID);
    // The limiter is shared through Postgres: this process takes what is left of the tenant's 20 an
    // hour. Only the accepted run had counted (not the four 400s nor the 409), or this would be refused.
    for (let run = 2; run <= 20; run += 1) await stack.services.rateLimits.reconciliationRuns.consume(limited.tenantId);
    const refused = await post({});
    assert.equal(refused.status, 429);
    assert.deepEqual([refused.body.error, refused.body.code], ['too many reconciliation runs, retry later', 'rate_limited']);
    assert.ok(Number(refused.headers.get('retry-after')) > 3_000);
  });

  it('fails a run visibly when the provider cannot list transactions, and changes nothing else', async () => {
    const owner = await createTenant(stack, 'Unlisted Tenant');
    const account = await provisionAccount(stack, owner.apiKey);
    await suppressedPayment(stack, account.AccountRef, 3000);
    await call(stack.sandboxUrl, 'POST', '/sandbox/faults', { body: { failureRate: 1, routes: ['/v1/transactions/virtual'] } });
    try {
      const run = await reconcile(stack, owner, new Date(Date.now() - 60_000));
      assert.equal(run.run.Status, 'failed');
      assert.match(run.run.Error, /listTransactions: HTTP 503/);
      assert.equal((await entries(stack, owner, account)).length, 0);
      assert.equal(
        Number((await stack.infra.db('reconciliation_provider_rows').where({ run_id: run.run.ID }).count('* as count'))[0]!.count),
        0,
      );
    } finally {
      await call(stack.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
    const retried = await reconcile(stack, owner, new Date(Date.now() - 60_000));
    assert.deepEqual([retried.run.Status, retried.run.Repaired], ['succeeded', 1]);
  });

  it('runs on a Temporal Schedule (the dev server) over the whole platform, split per tenant', async () => {
    const owner = await createTenant(stack, 'Scheduled Tenant');
    const account = await provisionAccount(stack, owner.apiKey);
    const paid = await suppressedPayment(stack, account.AccountRef, 4000);
    const scheduled = periodicSchedules({
      ...stack.config,
      RECONCILIATION_INTERVAL: 2_000,
      RECONCILIATION_LOOKBACK: 120_000,
      RECONCILIATION_GRACE: 0,
      RECONCILIATION_PROVIDER_ATTEMPTS: 2,
    });
    const scheduleId = await ensurePeriodicSchedule(stack.infra.temporal, stack.config.TEMPORAL_TASK_QUEUE, scheduled.reconciliation);
    try {
      assert.equal(scheduleId, `reconciliation:${stack.config.TEMPORAL_TASK_QUEUE}`);
      const described = await stack.infra.temporal.schedule.getHandle(scheduleId).describe();
      assert.equal(described.spec.intervals?.[0]?.every, 2_000);
      const child = await eventually<{ id: string; repaired: number; parent_run_id: string; workflow_id: string }>(
        async () =>
          stack.infra
            .db('reconciliation_runs as c')
            .join('reconciliation_runs as p', 'p.id', 'c.parent_run_id')
            .where({ 'c.tenant_id': owner.tenantId, 'p.trigger': 'schedule', 'c.status': 'succeeded' })
            .where('c.repaired', '>', 0)
            .first('c.id', 'c.repaired', 'c.parent_run_id', 'p.workflow_id'),
        { intervalMs: 500, what: 'a scheduled run that credits the payment' },
      );
      assert.equal(child.repaired, 1);
      assert.ok(String(child.workflow_id).startsWith(scheduleId));
      const [entry] = await entries(stack, owner, account);
      assert.equal(entry?.ProviderTxnRef, paid.body.transactionId);
      const listed = await call(stack.apiUrl, 'GET', '/v1/reconciliation/runs', { apiKey: owner.apiKey });
      assert.ok(
        listed.body.runs.some(
          (run: { ID: string; Trigger: string; ParentRunID: string }) =>
            run.ID === child.id && run.Trigger === 'schedule' && run.ParentRunID === child.parent_run_id,
        ),
      );
      const handle = stack.infra.temporal.workflow.getHandle(child.workflow_id);
      // The child's row says succeeded a moment before the platform run's workflow finishes its own last step.
      const status = await eventually(
        async () => {
          const current = await handle.query<{ phase: string; runId: string }>('status');
          return current.phase === 'finishing' ? null : current;
        },
        { what: 'the scheduled run to finish' },
      );
      assert.deepEqual([status.phase, status.runId], ['succeeded', child.parent_run_id]);
    } finally {
      await stack.infra.temporal.schedule.getHandle(scheduleId).delete();
      await eventually(
        async () =>
          (await stack.infra
            .db('reconciliation_runs')
            .where({ trigger: 'schedule', status: 'running' })
            .whereNull('parent_run_id')
            .first('id')) === undefined,
        {
          what: 'the last scheduled run to finish',
        },
      );
    }
  });
});

/**
 * A credit reconciliation posts is a provisional payment credit like an ingested one: it joins the batch
 * confirmation queue in the transaction that posts it (with its own posting time), and only a batch that
 * claims it confirms it. The batcher here waits an hour between passes (after its first, at start), so
 * the queue holds still until the test runs a pass itself.
 */
describe('reconciliation credits join the batch confirmation queue', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack(
      { WORKFLOW_START_RATE: '1000', RECONCILIATION_GRACE: '0ms', CONFIRMATION_BATCH_WINDOW: '1h' },
      { worker: true },
    );
  });
  after(() => stack?.close());

  it('queues each credit it posts for a batch, exactly as the webhook would have, and a batch confirms it', async () => {
    const owner = await createTenant(stack, 'Queued Reconciliation Tenant');
    const account = await provisionAccount(stack, owner.apiKey);
    const from = new Date(Date.now() - 1_000);
    const missed: string[] = [];
    for (const amount of [2010, 3010, 4010])
      missed.push((await suppressedPayment(stack, account.AccountRef, amount)).body.transactionId as string);
    // One payment whose webhook did arrive, for comparison.
    const heard = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5010 } });
    assert.equal(heard.body.delivery.status, 200);

    const run = await reconcile(stack, owner, from);
    assert.deepEqual({ repaired: run.run.Repaired, matched: run.run.Matched }, { repaired: 3, matched: 1 });
    const claims: Array<{
      provider_txn_ref: string;
      tenant_id: string;
      account_ref: string;
      batch_id: string | null;
      posted_at: Date;
      created_at: Date;
    }> = await stack.infra
      .db('confirmation_claims as c')
      .join('ledger_entries as e', 'e.id', 'c.entry_id')
      .where('c.tenant_id', owner.tenantId)
      .select('c.provider_txn_ref', 'c.tenant_id', 'c.account_ref', 'c.batch_id', 'c.posted_at', 'e.created_at');
    assert.deepEqual(
      new Set(claims.map((claim) => claim.provider_txn_ref)),
      new Set([...missed, heard.body.transactionId]),
      'the three credits it posted are queued beside the ingested one',
    );
    for (const claim of claims) {
      assert.deepEqual([claim.tenant_id, claim.account_ref, claim.batch_id], [owner.tenantId, account.AccountRef, null]);
      assert.equal(claim.posted_at.getTime(), claim.created_at.getTime(), 'its window counts from its own posting');
    }
    assert.ok(
      (await entries(stack, owner, account)).every((entry) => entry.Status === 'provisional'),
      'nothing confirms a credit before a batch claims it',
    );

    const pass = await stack.workerStarts!.batcher.pass();
    assert.ok(pass.payments >= 4, JSON.stringify(pass));
    await eventually(async () => (await entries(stack, owner, account)).every((entry) => entry.Status === 'confirmed'), {
      what: 'the batch confirming all four',
    });
    assert.deepEqual(
      await stack.infra.db('confirmation_claims').where({ tenant_id: owner.tenantId }).select('entry_id'),
      [],
      'settled credits leave no claim',
    );
    // Found in the Temporal UI like any batched payment: by its provider reference.
    for (const ref of missed) {
      await eventually(
        async () => {
          for await (const execution of stack.infra.temporal.workflow.list({ query: `ProviderTxnRefs = '${ref}'` }))
            if (execution.status.name === 'COMPLETED') return true;
          return false;
        },
        { what: `the batch that confirmed ${ref}` },
      );
    }
    const second = await reconcile(stack, owner, from);
    assert.deepEqual({ repaired: second.run.Repaired, matched: second.run.Matched }, { repaired: 0, matched: 4 });
  });
});
