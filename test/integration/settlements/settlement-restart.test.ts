import assert from 'node:assert/strict';
import { ensurePeriodicSchedule, periodicSchedules } from '../../../src/workflow-starts/periodic-schedules';
import { SETTLEMENT_STATUS } from '../../../src/contracts/search-attributes';
import { fundAccount, provisionAccount, statement } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { settlementStatusQuery, settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import { magicAccountNumber } from '../../helpers/sandbox-values';

interface SandboxView {
  submissions: Array<{ reference: string; status: string; paidOut: boolean }>;
  payouts: number;
  standingPayouts: number;
  calls: Array<{ at: string; route: string }>;
}

/**
 * A settlement whose workflow an operator terminated (or a deploy broke and it was terminated) while
 * its debit is provisional: the convergence check (a Schedule on the dev server) starts it again, the new run
 * picks up from the database at the attempt already under way, and the money ends right.
 */
describe('settlement restarted by the convergence check after its workflow was terminated mid-flight (dev server, real sandbox)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let tenant: TestTenant;
  let scheduleId: string | undefined;

  before(async () => {
    stack = await startStack(
      {
        SETTLEMENT_POLL_INTERVAL: '500ms',
        SETTLEMENT_RETRY_SCHEDULE: '3s',
        SETTLEMENT_REFUND_WATCH: '1s',
        SANDBOX_PROCESSING_TIME: '2s',
        SWEEP_GRACE: '0ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
    scheduleId = await ensurePeriodicSchedule(stack.infra.temporal, stack.config.TEMPORAL_TASK_QUEUE, {
      ...periodicSchedules(stack.config).convergenceCheck,
      intervalMs: 1_000,
    });
  });
  after(async () => {
    if (scheduleId)
      await stack?.infra.temporal.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => undefined);
    await stack?.close();
  });

  const sandboxView = async (ref: string): Promise<SandboxView> =>
    (await call<SandboxView>(stack.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;
  const handleOf = (ref: string) => stack.infra.temporal.workflow.getHandle(settlementWorkflowId(ref));

  async function settle(accountNumber: string): Promise<{ ref: string; accountRef: string }> {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202, response.text);
    return { ref: response.body.merchantTxRef as string, accountRef: account.AccountRef };
  }

  /** Waits until the workflow's status query satisfies `ready`, then terminates that run; returns its run id. */
  async function terminateWhen(
    ref: string,
    ready: (state: { stage: string; attempt: number; lastProviderStatus: string | null }) => boolean,
    what: string,
  ): Promise<string> {
    const runId = await eventually(
      async () => {
        const state = await handleOf(ref).query(settlementStatusQuery);
        return ready(state) ? (await handleOf(ref).describe()).runId : null;
      },
      { intervalMs: 100, what },
    );
    await stack.infra.temporal.workflow.getHandle(settlementWorkflowId(ref), runId).terminate('operator terminated it mid-flight');
    return runId;
  }

  async function restartedRun(ref: string, terminatedRunId: string): Promise<string> {
    return eventually(
      async () => {
        const described = await handleOf(ref).describe();
        return described.runId !== terminatedRunId && described.status.name === 'RUNNING' ? described.runId : null;
      },
      { intervalMs: 200, what: `the convergence check to restart ${ref}` },
    );
  }

  async function settled(ref: string, status: string): Promise<{ status: string; attemptCount: number }> {
    return eventually(
      async () => {
        const transfer = (await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body;
        if (transfer.status !== status) throw new Error(`last seen ${JSON.stringify(transfer)}`);
        return transfer;
      },
      { intervalMs: 250, what: `${ref} to be ${status}` },
    );
  }

  /** One payout standing, the debit confirmed, the balance down by the settlement, SettlementStatus = the database. */
  async function assertPaidOnce(settlement: { ref: string; accountRef: string }): Promise<SandboxView> {
    const view = await sandboxView(settlement.ref);
    assert.equal(view.payouts, 1, `${settlement.ref}: ${view.payouts} payouts`);
    assert.equal(view.standingPayouts, 1);
    const lines = (await statement(stack, tenant.apiKey, settlement.accountRef)).body.lines as Array<{
      entry: { Kind: string; Status: string };
      runningBalance: string;
    }>;
    assert.equal(lines.find((line) => line.entry.Kind === 'settlement')!.entry.Status, 'confirmed');
    assert.equal(lines.at(-1)!.runningBalance, '600.00');
    const row = await stack.infra.db('settlements').where({ merchant_tx_ref: settlement.ref }).first('status');
    await eventually(async () => (await handleOf(settlement.ref).describe()).typedSearchAttributes.get(SETTLEMENT_STATUS) === row.status, {
      what: `SettlementStatus of ${settlement.ref} to equal the database's ${row.status}`,
    });
    return view;
  }

  it('terminated while the transfer is PROCESSING at the provider: the new run follows the same reference, which pays once', async () => {
    // 7777: PROCESSING for three days unless the provider settles it sooner.
    const settlement = await settle(magicAccountNumber('stuckProcessing'));
    const terminated = await terminateWhen(
      settlement.ref,
      (state) => state.stage === 'follow' && state.lastProviderStatus === 'PROCESSING',
      'the transfer to be PROCESSING',
    );
    assert.equal((await sandboxView(settlement.ref)).submissions.length, 1);
    const row = await stack.infra.db('settlements').where({ merchant_tx_ref: settlement.ref }).first('status');
    assert.equal(row.status, 'processing', 'the debit is provisional with nobody following it');

    await restartedRun(settlement.ref, terminated);
    const resumed = await eventually(
      async () => {
        const state = await handleOf(settlement.ref).query(settlementStatusQuery);
        return state.lastProviderStatus === 'PROCESSING' ? state : null;
      },
      { what: 'the restarted run to poll the transfer' },
    );
    assert.deepEqual(
      { stage: resumed.stage, attempt: resumed.attempt, providerRef: resumed.providerRef },
      { stage: 'follow', attempt: 1, providerRef: `${settlement.ref}-1` },
    );
    assert.equal(
      (await handleOf(settlement.ref).describe()).typedSearchAttributes.get(SETTLEMENT_STATUS),
      'processing',
      'a restarted run starts at the database status',
    );

    // A second convergence check while the restarted run is open starts nothing: one run at a time.
    assert.equal((await stack.services.settlementRestarts.restartStalled()).restarted, 0);

    const provider = await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${settlement.ref}-1/settle`, { body: { status: 'SUCCESS' } });
    assert.equal(provider.status, 200, provider.text);
    const transfer = await settled(settlement.ref, 'success');
    assert.equal(transfer.attemptCount, 1);
    const view = await assertPaidOnce(settlement);
    assert.deepEqual(
      view.submissions.map((submission) => submission.reference),
      [`${settlement.ref}-1`],
    );
    assert.equal(
      view.calls.filter((providerCall) => providerCall.route === 'submit').length,
      1,
      'the reference was not even submitted again: the provider had acknowledged it',
    );
  });

  it('terminated in the pause after a failed attempt: the new run goes on with the next reference, never the failed one again', async () => {
    // 2222: the first two submissions fail, the third pays.
    const settlement = await settle(magicAccountNumber('failsTwiceThenSucceeds'));
    const terminated = await terminateWhen(
      settlement.ref,
      (state) => state.stage === 'pause' && state.attempt === 1,
      'the pause after attempt 1 failed',
    );
    await restartedRun(settlement.ref, terminated);
    const transfer = await settled(settlement.ref, 'success');
    assert.equal(transfer.attemptCount, 3);
    const view = await assertPaidOnce(settlement);
    assert.deepEqual(
      view.submissions.map((submission) => [submission.reference, submission.status]),
      [
        [`${settlement.ref}-1`, 'PAYMENT_FAILED'],
        [`${settlement.ref}-2`, 'PAYMENT_FAILED'],
        [`${settlement.ref}-3`, 'SUCCESS'],
      ],
    );
    // The run that paid completed; the convergence check never starts a completed settlement again.
    await eventually(async () => (await handleOf(settlement.ref).describe()).status.name === 'COMPLETED', {
      what: 'the restarted run to complete',
    });
    assert.equal((await stack.services.settlementRestarts.restartStalled()).restarted, 0);
  });
});
