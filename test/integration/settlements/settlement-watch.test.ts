import assert from 'node:assert/strict';
import { createJobs } from '../../../src/contracts/jobs';
import { retrySettlementRun } from '../../../src/settlements/settlement-restarts';
import { ensurePeriodicSchedule, periodicSchedules } from '../../../src/workflow-starts/periodic-schedules';
import { createSettlementWatchRepo } from '../../../src/reconciliation/settlement-watch.repo';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { settlementStatusQuery, settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import { magicAccountNumber } from '../../helpers/sandbox-values';

interface Finding {
  id: string;
  kind: string;
  severity: string;
  status: string;
  tenant_id: string;
  subject: string;
  first_run_id: string | null;
  details: Record<string, string>;
}

/**
 * A settlement reference the ledger failed that the provider pays after all is money out of the
 * platform's float with no debit for it: the watch (a step of the convergence check) and reconciliation
 * each raise it as an alert only the platform operator decides. A settlement run that fails for good is
 * parked with one alert instead of being restarted by every convergence check. Real sandbox over HTTP, dev server.
 */
describe('settlement references watched after they fail, and runs that fail for good parked (dev server, real sandbox)', function () {
  this.timeout(150_000);
  let stack: Stack;
  let tenant: TestTenant;
  let scheduleId: string | undefined;

  before(async () => {
    stack = await startStack(
      {
        SETTLEMENT_POLL_INTERVAL: '200ms',
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_MAX_ATTEMPTS: '3',
        SETTLEMENT_REFUND_WATCH: '500ms',
        SETTLEMENT_WATCH_MAX_INTERVAL: '1s',
        SANDBOX_PROCESSING_TIME: '1s',
        RECONCILIATION_GRACE: '0ms',
        RATE_LIMIT_RECONCILIATION_RUNS: '20/1h',
        SWEEP_GRACE: '0ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack, 'Watched Tenant');
  });
  after(async () => {
    if (scheduleId)
      await stack?.infra.temporal.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => undefined);
    await stack?.close();
  });

  /**
   * A settlement of 400.00 from a fresh account to `accountNumber` (its last digits pick the sandbox's behaviour), and its final status.
   */
  async function settle(accountNumber: string, finalStatus: string | null): Promise<{ ref: string; settlementId: string }> {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202, response.text);
    const ref = response.body.merchantTxRef as string;
    if (finalStatus) {
      await eventually(
        async () => (await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body.status === finalStatus,
        {
          what: `${ref} to be ${finalStatus}`,
        },
      );
    }
    const row = await stack.infra.db('settlements').where({ merchant_tx_ref: ref }).first('id');
    return { ref, settlementId: row.id };
  }

  /** The provider pays a reference it had failed (the sandbox's state, as a late bank answer would change it). */
  function providerPaysAfterAll(reference: string): string {
    const transfer = stack.sandbox.state.transferByReference(reference);
    assert.ok(transfer, `the sandbox knows ${reference}`);
    assert.equal(transfer.status, 'PAYMENT_FAILED');
    transfer.status = 'SUCCESS';
    return transfer.id;
  }

  const findingsOf = (settlementId: string, kind: string): Promise<Finding[]> =>
    stack.infra.db('reconciliation_exceptions').where({ settlement_id: settlementId, kind }).orderBy('id');

  it('reconciliation matches a payout to its own attempt: SUCCESS on a reference recorded failed is paid twice (another paid) or paid not debited, never matched', async () => {
    const from = new Date(Date.now() - 1_000);
    // 2222: the first two submissions fail, the third pays; 1111: every submission fails.
    const paid = await settle(magicAccountNumber('failsTwiceThenSucceeds'), 'success');
    const failed = await settle(magicAccountNumber('failsEverySubmission'), 'failed');
    const twiceTxn = providerPaysAfterAll(`${paid.ref}-1`);
    const notDebitedTxn = providerPaysAfterAll(`${failed.ref}-2`);

    const started = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', {
      apiKey: tenant.apiKey,
      body: { from: from.toISOString() },
    });
    assert.equal(started.status, 202, started.text);
    const run = await eventually(
      async () => {
        const response = await call(stack.apiUrl, 'GET', `/v1/reconciliation/runs/${started.body.run.ID}`, { apiKey: tenant.apiKey });
        return response.body.run?.Status === 'succeeded' ? response.body : null;
      },
      { intervalMs: 200, what: 'the reconciliation run' },
    );
    const bySubject = Object.fromEntries(run.exceptions.map((finding: Record<string, any>) => [finding.Subject, finding]));
    const twice = bySubject[twiceTxn];
    assert.ok(twice, `the second payout is reported: ${JSON.stringify(run.exceptions)}`);
    assert.deepEqual(
      [
        twice.Kind,
        twice.Severity,
        twice.MerchantTxRef,
        twice.PlatformDecides,
        twice.Details.merchantTxRef,
        twice.Details.attemptOutcome,
        twice.Details.settledReference,
        twice.Details.providerAmount,
        twice.Details.settlementAmount,
      ],
      ['settlement_paid_twice', 'alert', paid.ref, true, `${paid.ref}-1`, 'failed', `${paid.ref}-3`, '400.00', '400.00'],
    );
    const notDebited = bySubject[notDebitedTxn];
    assert.ok(notDebited, 'the payout of a failed settlement is reported');
    assert.deepEqual(
      [notDebited.Kind, notDebited.Severity, notDebited.Details.merchantTxRef],
      ['settlement_paid_not_debited', 'alert', `${failed.ref}-2`],
    );
    assert.ok(run.run.Alerts >= 2);
  });

  it('the watch has a failed reference due at once, then backs it off (doubling to its most, an outage not counted), and never takes more than its bound', async () => {
    const failed = await settle(magicAccountNumber('failsEverySubmission'), 'failed');
    const watch = createSettlementWatchRepo(stack.infra.db);
    const reference = { settlementId: failed.settlementId, attemptNo: 1, providerRef: `${failed.ref}-1` };
    const state = async () =>
      (await stack.infra
        .db('settlement_attempts')
        .where({ provider_ref: reference.providerRef })
        .first('watch_checks', stack.infra.db.raw('extract(epoch FROM watch_next_at - now()) AS wait_seconds'))) as {
        watch_checks: number;
        wait_seconds: string | null;
      };
    assert.deepEqual(await state(), { watch_checks: 0, wait_seconds: null }, 'never checked: due at the first convergence check');
    const due = await watch.due(72 * 3_600_000, 1_000);
    assert.ok(
      due.some((candidate) => candidate.providerRef === reference.providerRef),
      'a reference failed just now is due',
    );
    assert.ok(
      due.filter((candidate) => candidate.settlementId === failed.settlementId).length === 3,
      'every reference of the failed settlement',
    );
    assert.equal((await watch.due(72 * 3_600_000, 2)).length, 2, 'no more than the bound');

    const waits: number[] = [];
    for (const answered of [true, true, false, true, true]) {
      await watch.scheduleNext(reference, answered, 150_000);
      waits.push(Math.round(Number((await state()).wait_seconds) / 10) * 10);
    }
    // 60 s, 120 s; an outage: 60 s and no count; then 240 s and 480 s capped at 150 s.
    assert.deepEqual(waits, [60, 120, 60, 150, 150]);
    assert.equal((await state()).watch_checks, 4);
    assert.ok(
      !(await watch.due(72 * 3_600_000, 1_000)).some((candidate) => candidate.providerRef === reference.providerRef),
      'not due before its next check',
    );

    // Past the watch (the references' failure and the settlement's, 73 h ago): never looked up again.
    const longAgo = stack.infra.db.raw("now() - interval '73 hours'");
    await stack.infra
      .db('settlement_attempts')
      .where({ settlement_id: failed.settlementId })
      .update({ updated_at: longAgo, watch_next_at: null });
    await stack.infra.db('settlements').where({ id: failed.settlementId }).update({ updated_at: longAgo });
    assert.ok(!(await watch.due(72 * 3_600_000, 1_000)).some((candidate) => candidate.settlementId === failed.settlementId));
  });

  it('the watch raises a second payout of a paid settlement at once, without a reconciliation run; the tenant reads it, only the platform operator resolves it', async () => {
    scheduleId = await ensurePeriodicSchedule(stack.infra.temporal, stack.config.TEMPORAL_TASK_QUEUE, {
      ...periodicSchedules(stack.config).convergenceCheck,
      intervalMs: 1_000,
    });
    const settlement = await settle(magicAccountNumber('failsTwiceThenSucceeds'), 'success');
    // The watch has the failed references under watch (checked, found failed) before the provider changes its mind.
    await eventually(
      async () =>
        (
          await stack.infra
            .db('settlement_attempts')
            .where({ provider_ref: `${settlement.ref}-1` })
            .first('watch_checks')
        ).watch_checks > 0,
      {
        what: 'the watch to look the failed reference up',
      },
    );
    const operator = await dashboardUser(stack, tenant.tenantId, 'admin');
    const attentionBefore = (await call(stack.apiUrl, 'GET', '/auth/overview', { cookie: operator.cookie })).body.attention
      .reconciliationExceptions as number;
    const transactionId = providerPaysAfterAll(`${settlement.ref}-1`);

    const [finding] = await eventually(
      async () => {
        const found = await findingsOf(settlement.settlementId, 'settlement_paid_twice');
        return found.length ? found : null;
      },
      { intervalMs: 250, what: 'the watch to raise the second payout' },
    );
    assert.deepEqual(
      [finding!.severity, finding!.status, finding!.tenant_id, finding!.subject, finding!.first_run_id],
      ['alert', 'open', tenant.tenantId, transactionId, null],
    );
    assert.deepEqual(
      [
        finding!.details.merchantTxRef,
        finding!.details.providerAmount,
        finding!.details.settledReference,
        finding!.details.settlementAmount,
        finding!.details.raisedBy,
      ],
      [`${settlement.ref}-1`, '400.00', `${settlement.ref}-3`, '400.00', 'settlement_watch'],
    );
    const metric = await stack.infra.metrics.registry.getSingleMetricAsString('nuban_settlement_paid_without_debit_total');
    assert.match(metric, /nuban_settlement_paid_without_debit_total\{kind="settlement_paid_twice"\} [1-9]/);

    // Later checks meet the same payout: still one finding.
    const checks = (
      await stack.infra
        .db('settlement_attempts')
        .where({ provider_ref: `${settlement.ref}-1` })
        .first('watch_checks')
    ).watch_checks as number;
    await eventually(
      async () =>
        (
          await stack.infra
            .db('settlement_attempts')
            .where({ provider_ref: `${settlement.ref}-1` })
            .first('watch_checks')
        ).watch_checks >
        checks + 1,
      {
        what: 'two more checks of the paid reference',
      },
    );
    assert.equal((await findingsOf(settlement.settlementId, 'settlement_paid_twice')).length, 1);

    const overview = await call(stack.apiUrl, 'GET', '/auth/overview', { cookie: operator.cookie });
    assert.equal(overview.body.attention.reconciliationExceptions, attentionBefore + 1, "the finding counts on the tenant's overview");
    const seen = await call(stack.apiUrl, 'GET', `/auth/reconciliation/exceptions/${finding!.id}`, { cookie: operator.cookie });
    assert.deepEqual(
      [seen.status, seen.body.exception.Kind, seen.body.exception.PlatformDecides, seen.body.exception.FirstRunID],
      [200, 'settlement_paid_twice', true, null],
    );
    const refused = await call(stack.apiUrl, 'POST', `/auth/reconciliation/exceptions/${finding!.id}/resolve`, {
      cookie: operator.cookie,
      body: { note: 'our customer kept both, fine' },
    });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.error, /only the platform operator decides a settlement_paid_twice finding/);
    assert.equal((await findingsOf(settlement.settlementId, 'settlement_paid_twice'))[0]!.status, 'open');

    const resolved = await stack.services.reconciliation.resolve(
      { via: 'cli', tenantId: tenant.tenantId },
      finding!.id,
      'second payout recovered from the beneficiary bank, ticket 9120',
    );
    assert.deepEqual([resolved.status, resolved.resolvedVia], ['resolved', 'cli']);
  });

  it('parks a settlement run that failed for good with one alert and does not restart it; an operator retries it', async () => {
    // 7777: PROCESSING until settled here. The provider then reports it paid with another amount: the run fails for good.
    const settlement = await settle(magicAccountNumber('stuckProcessing'), null);
    const handle = stack.infra.temporal.workflow.getHandle(settlementWorkflowId(settlement.ref));
    await eventually(async () => (await handle.query(settlementStatusQuery)).lastProviderStatus === 'PROCESSING', {
      what: 'the transfer to be PROCESSING',
    });
    const transfer = stack.sandbox.state.transferByReference(`${settlement.ref}-1`)!;
    transfer.amountKobo = 39_000n;
    assert.equal(
      (await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${settlement.ref}-1/settle`, { body: { status: 'SUCCESS' } })).status,
      200,
    );
    const failedRunId = await eventually(
      async () => {
        const described = await handle.describe();
        return described.status.name === 'FAILED' ? described.runId : null;
      },
      { what: 'the run to fail on the amount mismatch' },
    );

    // Every scan that lists the failed run (the Schedule's and these) parks it; none starts it again.
    for (let scan = 0; scan < 2; scan += 1) {
      const result = await stack.services.settlementRestarts.restartStalled();
      assert.equal(result.restarted, 0, `scan ${scan}: ${JSON.stringify(result)}`);
    }
    const [alert, ...more] = await eventually(
      async () => {
        const found = await findingsOf(settlement.settlementId, 'settlement_run_failed');
        return found.length ? found : null;
      },
      { what: 'the parked run alert' },
    );
    assert.deepEqual(more, [], 'one alert');
    assert.deepEqual(
      [alert!.severity, alert!.status, alert!.details.runId, alert!.details.failureType],
      ['alert', 'open', failedRunId, 'ProviderAmountMismatchError'],
    );
    assert.match(alert!.details.failure!, /paid 39000 kobo; the settlement is 40000 kobo/);
    const described = await handle.describe();
    assert.deepEqual(
      [described.runId, described.status.name],
      [failedRunId, 'FAILED'],
      'the failed run is still the latest: nobody restarted it',
    );
    assert.equal((await stack.infra.db('settlements').where({ id: settlement.settlementId }).first('status')).status, 'processing');

    // The operator has the provider's amount corrected, then retries: the new run follows the same reference and completes.
    transfer.amountKobo = 40_000n;
    assert.equal(
      await retrySettlementRun({ db: stack.infra.db, jobs: createJobs(stack.config), starter: stack.services.starter }, settlement.ref),
      'started',
    );
    await eventually(
      async () => (await call(stack.apiUrl, 'GET', `/v1/transfers/${settlement.ref}`, { apiKey: tenant.apiKey })).body.status === 'success',
      {
        what: 'the retried settlement to be paid',
      },
    );
    assert.equal((await findingsOf(settlement.settlementId, 'settlement_run_failed')).length, 1);
  });
});
