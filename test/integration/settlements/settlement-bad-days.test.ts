import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { up as reopenNotFoundAttempts } from '../../../migrations/20261126000050_reopen_not_found_attempts';
import { SETTLEMENT_STATUS } from '../../../src/contracts/search-attributes';
import { fundAccount, provisionAccount, sendProviderEvent, statement } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { settlementRefundWorkflowId, settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import { magicAccountNumber } from '../../helpers/sandbox-values';

interface SandboxView {
  submissions: Array<{ reference: string; status: string; paidOut: boolean }>;
  payouts: number;
  standingPayouts: number;
  calls: Array<{ at: string; route: string }>;
}

interface Transfer {
  status: string;
  attemptCount: number;
}

/** The most calls that fall in any 60-second window. */
function maxCallsPerMinute(calls: SandboxView['calls']): number {
  const times = calls.map((c) => Date.parse(c.at)).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i += 1) {
    while (times[i]! - times[j]! >= 60_000) j += 1;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * The settlement rules against the sandbox's bad days, over real HTTP, with a worker on the dev server:
 * at most one payout per settlement (counted at the sandbox), the right final status, the debit reversed
 * exactly when no payout stands, refunds never lost, provider calls per minute bounded. Timings are
 * shortened through config; the lookup lag and outages (SANDBOX_PROCESSING_TIME) stay below the grace,
 * except 9696's, which outlasts it.
 */
describe("settlement against the provider's bad days (dev server, real sandbox)", function () {
  this.timeout(150_000);
  let stack: Stack;
  let tenant: TestTenant;
  let stuckSettlement: Promise<{ ref: string; accountRef: string; accountNumber: string; settlementId: string }> | undefined;
  let stuckSince = 0;
  let overdueSettlement: Promise<{ ref: string; accountRef: string; accountNumber: string; settlementId: string }> | undefined;

  before(async () => {
    stack = await startStack(
      {
        SETTLEMENT_POLL_INTERVAL: '1s',
        SETTLEMENT_RETRY_SCHEDULE: '500ms',
        SETTLEMENT_NOT_FOUND_GRACE: '5s',
        SETTLEMENT_OVERDUE_AFTER: '40s',
        SETTLEMENT_REFUND_WATCH: '1s',
        SETTLEMENT_REFUND_RECHECK: '6s',
        SANDBOX_PROCESSING_TIME: '2s',
        SANDBOX_REFUND_DELAY: '1500ms',
        PROVIDER_TIMEOUT: '1s',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
    stuckSince = Date.now();
    stuckSettlement = settle(magicAccountNumber('stuckProcessing'));
    overdueSettlement = settle(magicAccountNumber('alwaysFalseDuplicate'));
  });
  after(() => stack?.close());

  const sandboxView = async (ref: string): Promise<SandboxView> =>
    (await call<SandboxView>(stack.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;
  const transferOf = async (ref: string): Promise<Transfer> =>
    (await call<Transfer>(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body;
  const searchStatusOf = async (ref: string): Promise<string | undefined> =>
    (await stack.infra.temporal.workflow.getHandle(settlementWorkflowId(ref)).describe()).typedSearchAttributes.get(SETTLEMENT_STATUS);

  async function settle(accountNumber: string): Promise<{ ref: string; accountRef: string; accountNumber: string; settlementId: string }> {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202, response.text);
    const ref = response.body.merchantTxRef as string;
    const row = await stack.infra.db('settlements').where({ merchant_tx_ref: ref }).first('id');
    return { ref, accountRef: account.AccountRef, accountNumber, settlementId: row.id };
  }

  /** The settlement once it is in `status` (or in one of `status`, when more than one end is right). */
  async function finalState(ref: string, status: string | string[]): Promise<Transfer> {
    const ends = typeof status === 'string' ? [status] : status;
    return eventually(
      async () => {
        const transfer = await transferOf(ref);
        if (!ends.includes(transfer.status)) throw new Error(`last seen ${JSON.stringify(transfer)}`);
        return transfer;
      },
      { intervalMs: 250, what: `${ref} to be ${ends.join(' or ')}` },
    );
  }

  /** The money invariants: one payout at most, the debit reversed exactly when no payout stands, SettlementStatus = the database. */
  async function assertMoney(
    settlement: { ref: string; accountRef: string; accountNumber: string },
    expected: { status: string; standing: number },
  ): Promise<SandboxView> {
    const view = await sandboxView(settlement.ref);
    if (view.payouts > 1) {
      const attempts = await stack.infra
        .db('settlement_attempts')
        .join('settlements', 'settlements.id', 'settlement_attempts.settlement_id')
        .where('settlements.merchant_tx_ref', settlement.ref)
        .orderBy('attempt_no')
        .select('attempt_no', 'provider_ref', 'outcome', 'detail');
      assert.fail(
        `${settlement.ref} (account ${settlement.accountNumber}): ${view.payouts} payouts; sandbox submissions ${JSON.stringify(
          view.submissions.map(({ reference, status, paidOut }) => ({ reference, status, paidOut })),
        )}; attempts ${JSON.stringify(attempts)}`,
      );
    }
    assert.equal(view.standingPayouts, expected.standing, `${settlement.ref} standing payouts`);
    const transfer = await transferOf(settlement.ref);
    assert.equal(transfer.status, expected.status);
    const lines = (await statement(stack, tenant.apiKey, settlement.accountRef)).body.lines as Array<{
      entry: { Kind: string; Status: string };
      runningBalance: string;
    }>;
    const debit = lines.find((line) => line.entry.Kind === 'settlement')!;
    assert.equal(
      debit.entry.Status,
      expected.standing === 1 ? 'confirmed' : 'reversed',
      `${settlement.ref}: debit reversed exactly when no payout stands`,
    );
    assert.equal(lines.at(-1)!.runningBalance, expected.standing === 1 ? '600.00' : '1000.00');
    await eventually(async () => (await searchStatusOf(settlement.ref)) === expected.status, {
      what: `SettlementStatus of ${settlement.ref} to be ${expected.status}`,
    });
    assert.ok(maxCallsPerMinute(view.calls) <= 20, `${settlement.ref}: ${maxCallsPerMinute(view.calls)} provider calls in a minute`);
    return view;
  }

  it('pays each bad-day transfer exactly once and ends it in the right state', async () => {
    // All at once: their waits overlap. Each case fails on a service that takes the answer at face value.
    const cases = [
      // The submit times out, the lookup lags, a repeated reference is answered 409 "duplicate".
      { accountNumber: magicAccountNumber('hiddenAfterTimeout'), status: 'success', standing: 1, attempts: 1 },
      // An unexplained 400 although the transfer was recorded; its first lookup says "not found".
      { accountNumber: magicAccountNumber('errorAfterRecording'), status: 'success', standing: 1, attempts: 1 },
      // The same, but lookups say "not found" for 24 s, past the 5 s grace: found only by probing with the same reference.
      { accountNumber: magicAccountNumber('hiddenPastGrace'), status: 'success', standing: 1, attempts: 1 },
      // The first submission is refused as a duplicate although nothing was recorded; lookups say "not found":
      // only a probe of the same reference after the grace creates it.
      { accountNumber: magicAccountNumber('falseDuplicateOnce'), status: 'success', standing: 1, attempts: 1 },
      // HTTP 200 with the pending code 09.
      { accountNumber: magicAccountNumber('pendingCode'), status: 'success', standing: 1, attempts: 1 },
      // 429 with Retry-After, then an HTML gateway page, on the name lookup, the submit and the lookups.
      { accountNumber: magicAccountNumber('throttled'), status: 'success', standing: 1, attempts: 1 },
      { accountNumber: magicAccountNumber('gatewayPage'), status: 'success', standing: 1, attempts: 1 },
      // The failed first attempt is refunded later (a failed debit returned); the second pays. When the lookup's
      // PAYMENT_FAILED answer is lost (a slow machine's timeout) and REFUND is the first end it sees, REFUND cannot tell a
      // returned debit from a reversed payout: the settlement ends refunded, nothing sent again. Both ends are right.
      {
        accountNumber: magicAccountNumber('failedAttemptRefunded'),
        status: 'success',
        standing: 1,
        attempts: 2,
        orElse: { status: 'refunded', standing: 0, attempts: 1 },
      },
      // Every submission fails: the debit is reversed, nothing was paid.
      { accountNumber: magicAccountNumber('failsEverySubmission'), status: 'failed', standing: 0, attempts: 5 },
      // payout_refund arrives while the lookup still says SUCCESS, after the refund watch ended.
      { accountNumber: magicAccountNumber('refundedWhileLookupShowsSuccess'), status: 'refunded', standing: 0, attempts: 1 },
      // Payout webhooks duplicated (new request ids) and out of order.
      { accountNumber: magicAccountNumber('refundedWithWebhooksOutOfOrder'), status: 'refunded', standing: 0, attempts: 1 },
    ];
    const settlements = await Promise.all(cases.map((testCase) => settle(testCase.accountNumber)));
    const ends = await Promise.all(
      cases.map(async (testCase, i) => {
        const alternatives: Array<{ status: string; standing: number; attempts: number }> = [testCase];
        if ('orElse' in testCase && testCase.orElse) alternatives.push(testCase.orElse);
        const reached = await finalState(
          settlements[i]!.ref,
          alternatives.map((end) => end.status),
        );
        return alternatives.find((end) => end.status === reached.status)!;
      }),
    );
    // The failed attempt's refund has been processed before the money is checked.
    const failedThenRefunded = settlements[cases.findIndex((testCase) => testCase.accountNumber.endsWith('8888'))]!;
    await eventually(
      async () =>
        (
          await stack.infra
            .db('settlement_attempts')
            .where({ settlement_id: failedThenRefunded.settlementId, attempt_no: 1 })
            .first('outcome')
        )?.outcome === 'refunded',
      {
        what: 'the refund of the failed attempt to be recorded on that attempt',
      },
    );
    for (const [i, testCase] of cases.entries()) {
      const end = ends[i]!;
      const view = await assertMoney(settlements[i]!, end);
      assert.equal((await transferOf(settlements[i]!.ref)).attemptCount, end.attempts, `${testCase.accountNumber} attempts`);
      assert.equal(view.submissions.length, end.attempts, `${testCase.accountNumber}: one reference per attempt`);
    }
    // The reversal of a refunded settlement is one entry, however many refund events came.
    const outOfOrder = settlements[cases.findIndex((testCase) => testCase.accountNumber.endsWith('3300'))]!;
    const lines = (await statement(stack, tenant.apiKey, outOfOrder.accountRef)).body.lines as Array<{ entry: { Kind: string } }>;
    assert.equal(lines.filter((line) => line.entry.Kind === 'reversal').length, 1);
  });

  it("a second refund event after the first one's workflow ended is still processed", async () => {
    const settlement = await settle('0123456789');
    await finalState(settlement.ref, 'success');
    await eventually(
      async () =>
        (await stack.infra.temporal.workflow.getHandle(settlementWorkflowId(settlement.ref)).describe()).status.name === 'COMPLETED',
      { what: 'the end of the watch' },
    );
    // A payout_refund event the provider's lookup never agrees with: its workflow gives up after the re-check.
    const providerRef = `${settlement.ref}-1`;
    const early = {
      event_type: 'payout_refund',
      requestId: randomUUID(),
      data: { merchant: {}, transaction: { merchantTxRef: providerRef, transactionId: 'x' }, customer: {} },
    };
    assert.equal((await sendProviderEvent(stack, early)).status, 200);
    const first = stack.infra.temporal.workflow.getHandle(settlementRefundWorkflowId(providerRef, early.requestId));
    assert.equal(await eventually(() => first.result(), { what: 'the first refund workflow' }), 'not_refunded');
    assert.equal((await transferOf(settlement.ref)).status, 'success');
    // Now the provider really refunds it: its own payout_refund event must not be swallowed by the first.
    assert.equal((await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${providerRef}/refund`)).status, 200);
    await finalState(settlement.ref, 'refunded');
    await assertMoney(settlement, { status: 'refunded', standing: 0 });
  });

  it('a workflow started by anyone on the task queue cannot move money the provider does not back', async () => {
    const settlement = await settle('0123456789');
    await finalState(settlement.ref, 'success');
    const settlementInput = {
      settlementId: settlement.settlementId,
      merchantTxRef: settlement.ref,
      maxAttempts: 5,
      retryScheduleMs: [500],
      pollIntervalMs: 1_000,
      refundWatchMs: 1_000,
    };
    // A forged refund (the provider says SUCCESS) and a forged fresh settlement run (another attempt) change nothing.
    const refund = await stack.infra.temporal.workflow.execute('settlementRefundWorkflow', {
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
      workflowId: `forged-refund-${randomUUID()}`,
      args: [
        {
          settlementId: settlement.settlementId,
          merchantTxRef: settlement.ref,
          providerRef: `${settlement.ref}-1`,
          recheckMs: 1_000,
          pollIntervalMs: 500,
          settlement: settlementInput,
        },
      ],
    });
    assert.equal(refund, 'not_refunded');
    const rerun = await stack.infra.temporal.workflow.execute('settlementWorkflow', {
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
      workflowId: `forged-settlement-${randomUUID()}`,
      args: [settlementInput],
    });
    assert.equal(rerun, 'success');
    assert.deepEqual(await stack.services.settlementExecution.submitAttempt(settlement.settlementId, 2), {
      kind: 'settlement_closed',
      status: 'success',
    });
    assert.equal(await stack.services.settlementExecution.fail(settlement.settlementId, 'forged'), 'success');
    const view = await assertMoney(settlement, { status: 'success', standing: 1 });
    assert.equal(view.submissions.length, 1);
  });

  it('a reference every submission of which is refused as a duplicate, and no lookup shows, raises an overdue alert: probed with the same reference, never paid, never replaced', async () => {
    // Started in `before`, so the other cases run while it goes unanswered for SETTLEMENT_OVERDUE_AFTER.
    const settlement = await overdueSettlement!;
    const finding = await eventually(
      async () =>
        (await stack.infra
          .db('reconciliation_exceptions')
          .where({ kind: 'settlement_overdue', settlement_id: settlement.settlementId })
          .first()) ?? null,
      {
        what: `an overdue alert for ${settlement.ref}`,
      },
    );
    assert.equal(finding.subject, `${settlement.ref}-1`);
    assert.equal(finding.severity, 'alert');
    assert.deepEqual([finding.details.attempt, finding.details.seenByLookup], [1, false]);
    const view = await sandboxView(settlement.ref);
    assert.equal(view.payouts, 0);
    assert.equal(view.submissions.length, 0, 'the provider recorded none of the submissions');
    assert.ok(view.calls.filter((c) => c.route === 'submit').length >= 3, 'probed with the same reference after each grace');
    const transfer = await transferOf(settlement.ref);
    assert.deepEqual(
      [transfer.status, transfer.attemptCount],
      ['processing', 1],
      'the debit stands while the reference might still pay; no new reference',
    );
    assert.equal(
      (
        await stack.infra
          .db('settlement_attempts')
          .where({ settlement_id: settlement.settlementId })
          .count<Array<{ count: string }>>('* as count')
      )[0]!.count,
      '1',
    );
  });

  it('a transfer stuck PROCESSING is polled at most about 20 times a minute, then pays once when it ends', async () => {
    // Started in `before`, so the other cases run while it is watched for more than a minute.
    const settlement = await stuckSettlement!;
    await eventually(async () => (await transferOf(settlement.ref)).status === 'processing', { what: 'processing' });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stuckSince + 65_000 - Date.now())));
    const stuck = await sandboxView(settlement.ref);
    const first = Date.parse(stuck.calls[0]!.at);
    const inFirstMinute = stuck.calls.filter((c) => Date.parse(c.at) - first < 60_000).length;
    assert.ok(inFirstMinute >= 5, `${inFirstMinute} calls: the transfer was not being polled`);
    assert.ok(maxCallsPerMinute(stuck.calls) <= 20, `${maxCallsPerMinute(stuck.calls)} calls in a minute`);
    assert.equal(
      (await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${settlement.ref}-1/settle`, { body: { status: 'SUCCESS' } })).status,
      200,
    );
    // The payout_success webhook wakes the workflow well before its next (up to 60 s) poll.
    await finalState(settlement.ref, 'success');
    await assertMoney(settlement, { status: 'success', standing: 1 });
  });
});

/**
 * "Not found" never fails a reference, however long it lasts: once every lookup has said so for
 * SETTLEMENT_NOT_FOUND_GRACE the same reference is submitted again (a probe), and only the provider's
 * own answers (a failed lookup, a documented "not created" refusal of a first submission) end it.
 */
describe('settlement: "not found" never fails a reference (dev server, real sandbox)', function () {
  this.timeout(90_000);
  let stack: Stack;
  let idle: Stack;
  let tenant: TestTenant;
  let slowSettlement: Promise<{ ref: string; accountRef: string; settlementId: string }> | undefined;

  before(async () => {
    // A slow provider (2.5 s an answer): the first lookup's "not found" comes back past the 2 s grace.
    stack = await startStack(
      {
        SANDBOX_LATENCY: '2500ms',
        PROVIDER_TIMEOUT: '5s',
        SETTLEMENT_NOT_FOUND_GRACE: '2s',
        SETTLEMENT_POLL_INTERVAL: '500ms',
        SETTLEMENT_RETRY_SCHEDULE: '500ms',
        SETTLEMENT_REFUND_WATCH: '1s',
      },
      { worker: true },
    );
    // No worker: the test drives the settlement activities itself, against a sandbox of its own.
    idle = await startStack({ SETTLEMENT_NOT_FOUND_GRACE: '2s' });
    tenant = await createTenant(stack);
    slowSettlement = settle(stack, magicAccountNumber('errorAfterRecording'));
  });
  after(async () => {
    await idle?.close();
    await stack?.close();
  });

  async function settle(on: Stack, accountNumber: string): Promise<{ ref: string; accountRef: string; settlementId: string }> {
    const account = await provisionAccount(on, tenant.apiKey);
    await fundAccount(on, account.ID, 100_000n);
    const response = await call(on.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202, response.text);
    const row = await on.infra.db('settlements').where({ merchant_tx_ref: response.body.merchantTxRef }).first('id');
    return { ref: response.body.merchantTxRef as string, accountRef: account.AccountRef, settlementId: row.id };
  }

  /** A settlement of the idle stack whose attempt 1 (as far as the database knows) was submitted an hour ago with this outcome. */
  async function submittedLongAgo(accountNumber: string, outcome: string): Promise<{ settlementId: string; providerRef: string }> {
    const settlement = await settle(idle, accountNumber);
    const providerRef = `${settlement.ref}-1`;
    await idle.infra
      .db('settlements')
      .where({ id: settlement.settlementId })
      .update({ status: 'processing', attempt_count: 1, account_name: 'ADA OBI' });
    await idle.infra.db('settlement_attempts').insert({
      settlement_id: settlement.settlementId,
      attempt_no: 1,
      provider_ref: providerRef,
      outcome,
      last_submitted_at: idle.infra.db.raw("now() - interval '1 hour'"),
    });
    return { settlementId: settlement.settlementId, providerRef };
  }

  const outcomeOf = async (settlementId: string, attemptNo = 1): Promise<string> =>
    (await idle.infra.db('settlement_attempts').where({ settlement_id: settlementId, attempt_no: attemptNo }).first('outcome')).outcome;

  it('a reference the provider never saw is probed once "not found" has lasted the grace, never failed; the probe is the one live transfer', async () => {
    const { settlementId } = await submittedLongAgo('0123456789', 'ambiguous');
    const execution = idle.services.settlementExecution;
    assert.equal((await execution.pollAttempt(settlementId, 1)).kind, 'pending', 'the first "not found" decides nothing');
    assert.equal((await execution.pollAttempt(settlementId, 1)).kind, 'pending', 'nor does a second within the grace');
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    assert.equal((await execution.pollAttempt(settlementId, 1)).kind, 'probe');
    assert.equal(await outcomeOf(settlementId), 'ambiguous', 'still undecided: it may exist');
    await assert.rejects(execution.submitAttempt(settlementId, 2), /attempt 1 is ambiguous, not failed by the provider/);
    assert.equal((await execution.submitAttempt(settlementId, 1)).kind, 'accepted');
    assert.equal(await outcomeOf(settlementId), 'accepted');
  });

  it('no answer to a submission acknowledges a reference: a "duplicate" refusal or an acceptance no lookup confirms is probed after the grace', async () => {
    const execution = idle.services.settlementExecution;
    for (const profile of [{ falseDuplicates: 1 }, { lookupLagMs: 600_000 }]) {
      const settlement = await settle(idle, '0123456789');
      await idle.infra.db('settlements').where({ id: settlement.settlementId }).update({ account_name: 'ADA OBI' });
      const created = await call(idle.sandboxUrl, 'POST', '/sandbox/profiles', {
        body: { match: { referencePrefix: settlement.ref }, ...profile },
      });
      assert.equal(created.status, 201, created.text);
      const answer = (await execution.submitAttempt(settlement.settlementId, 1)).kind;
      assert.equal(answer, 'falseDuplicates' in profile ? 'duplicate' : 'accepted');
      assert.equal(await outcomeOf(settlement.settlementId), 'accepted');
      assert.equal(
        (await idle.infra.db('settlement_attempts').where({ settlement_id: settlement.settlementId }).first('acknowledged_at'))
          .acknowledged_at,
        null,
        answer,
      );
      assert.equal(
        (await execution.pollAttempt(settlement.settlementId, 1)).kind,
        'pending',
        `${answer}: the first "not found" decides nothing`,
      );
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      assert.equal((await execution.pollAttempt(settlement.settlementId, 1)).kind, 'probe', `${answer}: "not found" for the grace`);
    }
  });

  it("a submission's answer never overwrites what a lookup decided while it was on its way", async () => {
    const execution = idle.services.settlementExecution;
    const settlement = await settle(idle, '0123456789');
    await idle.infra.db('settlements').where({ id: settlement.settlementId }).update({ account_name: 'ADA OBI' });
    // The provider answers the submit only after 1.5 s; meanwhile the reference is found failed.
    const created = await call(idle.sandboxUrl, 'POST', '/sandbox/profiles', {
      body: { match: { referencePrefix: settlement.ref }, final: 'PAYMENT_FAILED' },
    });
    assert.equal(created.status, 201, created.text);
    await call(idle.sandboxUrl, 'POST', '/sandbox/faults', { body: { latencyMs: 1_500, routes: ['/v2/transfers/bank'] } });
    try {
      const submitting = execution.submitAttempt(settlement.settlementId, 1);
      await eventually(async () => (await outcomeOf(settlement.settlementId).catch(() => null)) === 'submitting', {
        what: 'the submission to be on its way',
      });
      await idle.infra
        .db('settlement_attempts')
        .where({ settlement_id: settlement.settlementId, attempt_no: 1 })
        .update({ outcome: 'failed', detail: 'provider reports PAYMENT_FAILED' });
      assert.equal((await submitting).kind, 'accepted');
      assert.equal(await outcomeOf(settlement.settlementId), 'failed', 'the late "accepted" does not reopen a failed reference');
    } finally {
      await call(idle.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
  });

  it('a documented "not created" refusal fails a first submission; the same refusal of a repeat is ambiguous', async () => {
    const execution = idle.services.settlementExecution;
    // The provider refuses an unknown bank code before it records anything (400, code 01).
    const first = await settle(idle, '0123456789');
    await idle.infra.db('settlements').where({ id: first.settlementId }).update({ bank_code: '999', account_name: 'ADA OBI' });
    assert.equal((await execution.submitAttempt(first.settlementId, 1)).kind, 'rejected');
    assert.equal(await outcomeOf(first.settlementId), 'failed');
    assert.equal((await execution.pollAttempt(first.settlementId, 1)).kind, 'failed');

    const repeat = await submittedLongAgo('0123456789', 'ambiguous');
    await idle.infra.db('settlements').where({ id: repeat.settlementId }).update({ bank_code: '999' });
    assert.equal((await execution.submitAttempt(repeat.settlementId, 1)).kind, 'ambiguous');
    assert.equal(await outcomeOf(repeat.settlementId), 'ambiguous', 'the first submission may have created it');
  });

  it('a lookup that answers about another reference decides nothing: the attempt is neither failed nor paid by it', async () => {
    const execution = idle.services.settlementExecution;
    for (const final of ['PAYMENT_FAILED', 'SUCCESS']) {
      const settlement = await settle(idle, '0123456789');
      await idle.infra.db('settlements').where({ id: settlement.settlementId }).update({ account_name: 'ADA OBI' });
      const profile = await call(idle.sandboxUrl, 'POST', '/sandbox/profiles', {
        body: { match: { referencePrefix: settlement.ref }, final, lookupAnswersFor: 'mtx_someone_else-1' },
      });
      assert.equal(profile.status, 201, profile.text);
      assert.equal((await execution.submitAttempt(settlement.settlementId, 1)).kind, 'accepted');
      assert.deepEqual(
        await execution.pollAttempt(settlement.settlementId, 1),
        { kind: 'unavailable', reason: `the provider's lookup of ${settlement.ref}-1 answered about mtx_someone_else-1` },
        final,
      );
      assert.equal(await outcomeOf(settlement.settlementId), 'accepted', final);
      assert.equal((await idle.infra.db('settlements').where({ id: settlement.settlementId }).first('status')).status, 'processing', final);
    }
  });

  it('the upgrade reopens the latest attempt of an open settlement failed only for "not found"; nothing else', async () => {
    const failedForNotFound = { outcome: 'failed', detail: 'not found by the provider for 300 s after its last submission' };
    const reopened = await submittedLongAgo('0123456789', 'failed');
    const movedOn = await submittedLongAgo('0123456789', 'failed');
    const closed = await submittedLongAgo('0123456789', 'failed');
    const failedByLookup = await submittedLongAgo('0123456789', 'failed');
    await idle.infra
      .db('settlement_attempts')
      .whereIn('settlement_id', [reopened.settlementId, movedOn.settlementId, closed.settlementId])
      .update(failedForNotFound);
    await idle.infra
      .db('settlement_attempts')
      .where({ settlement_id: failedByLookup.settlementId })
      .update({ detail: 'provider reports PAYMENT_FAILED' });
    await idle.infra.db('settlement_attempts').insert({
      settlement_id: movedOn.settlementId,
      attempt_no: 2,
      provider_ref: `${movedOn.providerRef.slice(0, -2)}-2`,
      outcome: 'accepted',
    });
    assert.equal(await idle.services.settlementExecution.fail(closed.settlementId, 'every attempt failed'), 'failed');
    await reopenNotFoundAttempts(idle.infra.db);
    assert.equal(await outcomeOf(reopened.settlementId), 'ambiguous');
    assert.equal(await outcomeOf(movedOn.settlementId), 'failed', 'a later reference exists: the payout watch covers this one');
    assert.equal(await outcomeOf(closed.settlementId), 'failed');
    assert.equal(await outcomeOf(failedByLookup.settlementId), 'failed');
  });

  it('before a new reference, earlier ones are asked again: one paid after it was reported failed is adopted, one PROCESSING again holds the new one back', async () => {
    const execution = idle.services.settlementExecution;
    const paidLate = await settle(idle, '0123456789');
    await idle.infra.db('settlements').where({ id: paidLate.settlementId }).update({ account_name: 'ADA OBI' });
    assert.equal((await execution.submitAttempt(paidLate.settlementId, 1)).kind, 'accepted');
    // As if its lookup had said PAYMENT_FAILED: the sandbox now shows it paid (SUCCESS at its first check).
    await idle.infra
      .db('settlement_attempts')
      .where({ settlement_id: paidLate.settlementId, attempt_no: 1 })
      .update({ outcome: 'failed', detail: 'provider reports PAYMENT_FAILED' });
    assert.deepEqual(await execution.submitAttempt(paidLate.settlementId, 2), { kind: 'settlement_closed', status: 'success' });
    assert.equal(await outcomeOf(paidLate.settlementId), 'success');
    assert.equal(
      await idle.infra.db('settlement_attempts').where({ settlement_id: paidLate.settlementId, attempt_no: 2 }).first(),
      undefined,
      'no second reference',
    );
    const debit = await idle.infra
      .db('ledger_entries')
      .join('settlements', 'settlements.debit_entry_id', 'ledger_entries.id')
      .where('settlements.id', paidLate.settlementId)
      .first('ledger_entries.status');
    assert.equal(debit.status, 'confirmed');
    const view = (await call<SandboxView>(idle.sandboxUrl, 'GET', `/sandbox/transfers/${paidLate.ref}`)).body;
    assert.deepEqual([view.submissions.length, view.payouts], [1, 1]);

    const processingAgain = await settle(idle, magicAccountNumber('stuckProcessing'));
    await idle.infra.db('settlements').where({ id: processingAgain.settlementId }).update({ account_name: 'ADA OBI' });
    assert.equal((await execution.submitAttempt(processingAgain.settlementId, 1)).kind, 'accepted');
    await idle.infra
      .db('settlement_attempts')
      .where({ settlement_id: processingAgain.settlementId, attempt_no: 1 })
      .update({ outcome: 'failed', detail: 'provider reports PAYMENT_FAILED' });
    assert.equal((await execution.submitAttempt(processingAgain.settlementId, 2)).kind, 'unavailable');
    assert.equal(
      await idle.infra.db('settlement_attempts').where({ settlement_id: processingAgain.settlementId, attempt_no: 2 }).first(),
      undefined,
      'no second reference while the first might pay',
    );
  });

  it('REFUND on a reference no lookup saw paid ends the settlement refunded: it may have paid, so no new reference', async () => {
    const execution = idle.services.settlementExecution;
    const settlement = await settle(idle, magicAccountNumber('stuckProcessing'));
    await idle.infra.db('settlements').where({ id: settlement.settlementId }).update({ account_name: 'ADA OBI' });
    assert.equal((await execution.submitAttempt(settlement.settlementId, 1)).kind, 'accepted');
    // Paid and then reversed by the provider while no lookup of ours got an answer (the SUCCESS one timed out).
    const providerRef = `${settlement.ref}-1`;
    const paid = await call(idle.sandboxUrl, 'POST', `/sandbox/transfers/${providerRef}/settle`, { body: { status: 'SUCCESS' } });
    assert.equal(paid.status, 200, paid.text);
    assert.equal((await call(idle.sandboxUrl, 'POST', `/sandbox/transfers/${providerRef}/refund`)).status, 200);
    const progress = await eventually(
      async () => {
        const answer = await execution.pollAttempt(settlement.settlementId, 1);
        return answer.kind === 'pending' ? null : answer;
      },
      { what: `the lookup of ${providerRef} to show it` },
    );
    // Whatever the poll said, the workflow's next step would be the next reference: it must not go out.
    const next = await execution.submitAttempt(settlement.settlementId, 2).catch((error: Error) => error.message);
    const view = (await call<SandboxView>(idle.sandboxUrl, 'GET', `/sandbox/transfers/${settlement.ref}`)).body;
    assert.deepEqual(
      view.submissions.map((submission) => submission.reference),
      [providerRef],
      'no second reference after one that may have paid',
    );
    assert.deepEqual([view.payouts, view.standingPayouts], [1, 0], 'paid once, refunded');
    assert.deepEqual(progress, { kind: 'settlement_closed', status: 'refunded' });
    assert.deepEqual(next, { kind: 'settlement_closed', status: 'refunded' });
    assert.equal(await outcomeOf(settlement.settlementId), 'refunded');
    const debit = await idle.infra
      .db('ledger_entries')
      .join('settlements', 'settlements.debit_entry_id', 'ledger_entries.id')
      .where('settlements.id', settlement.settlementId)
      .first('ledger_entries.status');
    assert.equal(debit.status, 'reversed');
  });

  it('a poll that finds its attempt ended failed by an earlier run of itself never answers an open settlement as closed', async () => {
    const execution = idle.services.settlementExecution;
    for (const end of ['SUCCESS', 'REFUND'] as const) {
      const settlement = await settle(idle, magicAccountNumber('stuckProcessing'));
      await idle.infra.db('settlements').where({ id: settlement.settlementId }).update({ account_name: 'ADA OBI' });
      assert.equal((await execution.submitAttempt(settlement.settlementId, 1)).kind, 'accepted');
      const providerRef = `${settlement.ref}-1`;
      assert.equal(
        (await call(idle.sandboxUrl, 'POST', `/sandbox/transfers/${providerRef}/settle`, { body: { status: 'SUCCESS' } })).status,
        200,
      );
      if (end === 'REFUND') assert.equal((await call(idle.sandboxUrl, 'POST', `/sandbox/transfers/${providerRef}/refund`)).status, 200);
      // This poll has read the attempt and waits for its lookup's answer when an earlier run of the poll, timed
      // out but still running, ends the attempt failed (it saw PAYMENT_FAILED).
      const lookups = async () =>
        (await call<SandboxView>(idle.sandboxUrl, 'GET', `/sandbox/transfers/${settlement.ref}`)).body.calls.filter(
          (made) => made.route === 'lookup',
        ).length;
      const before = await lookups();
      await call(idle.sandboxUrl, 'POST', '/sandbox/faults', {
        body: { latencyMs: 5_000, routes: ['/v1/transactions/accounts/single'] },
      });
      let answered = false;
      const polling = execution.pollAttempt(settlement.settlementId, 1).finally(() => (answered = true));
      try {
        await eventually(async () => (await lookups()) > before, { what: `the lookup of ${providerRef} to be on its way` });
        await idle.infra
          .db('settlement_attempts')
          .where({ settlement_id: settlement.settlementId, attempt_no: 1 })
          .update({ outcome: 'failed', detail: 'provider reports PAYMENT_FAILED' });
        assert.equal(answered, false, 'the attempt ended while the lookup was on its way');
      } finally {
        await call(idle.sandboxUrl, 'DELETE', '/sandbox/faults');
      }
      const answer = await polling;
      if (end === 'SUCCESS') {
        // Paid after all: adopted as the payout, as before any new reference.
        assert.deepEqual(answer, { kind: 'succeeded', status: 'success' });
        assert.equal(await outcomeOf(settlement.settlementId), 'success');
      } else {
        // A failed debit returned: the failure decides (the next reference, after the usual re-check).
        assert.deepEqual(answer, { kind: 'failed', reason: `provider reports REFUND on ${providerRef}, reported failed` });
        assert.equal(await outcomeOf(settlement.settlementId), 'failed');
      }
    }
  });

  it('an unexplained 400 (code 96) on a first submission is ambiguous, never a failure', async () => {
    const settlement = await settle(idle, magicAccountNumber('hiddenPastGrace'));
    await idle.infra.db('settlements').where({ id: settlement.settlementId }).update({ account_name: 'ADA OBI' });
    assert.equal((await idle.services.settlementExecution.submitAttempt(settlement.settlementId, 1)).kind, 'ambiguous');
    assert.equal(await outcomeOf(settlement.settlementId), 'ambiguous');
  });

  it('4040 (an unexplained 400, its first lookup "not found") answered only after the grace: followed, paid once', async () => {
    // Started in `before`, so the other cases run while the slow provider answers it.
    const settlement = await slowSettlement!;
    const transfer = await eventually(
      async () => {
        const current = (await call(stack.apiUrl, 'GET', `/v1/transfers/${settlement.ref}`, { apiKey: tenant.apiKey })).body;
        return current.status === 'processing' || current.status === 'pending' ? null : current;
      },
      { what: `${settlement.ref} to end` },
    );
    const view = (await call<SandboxView>(stack.sandboxUrl, 'GET', `/sandbox/transfers/${settlement.ref}`)).body;
    assert.equal(view.payouts, 1, `${view.payouts} payouts`);
    assert.deepEqual([transfer.status, transfer.attemptCount], ['success', 1]);
  });
});
