import type { ScheduleHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { dynamicAccountReturnsScheduleId, type DynamicAccountReturnsResult } from '../../../src/contracts/dynamic-account-returns.contract';
import { provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** A payer whose name the sandbox's name enquiry gives as the payment names them (its default sender name). */
const PAYER_ACCOUNT = '0123456789';

/**
 * The worker's returns of mismatched payments run on a Temporal Schedule, not in its in-process loops: with the
 * Schedule paused, the loops go on (accounts expire) and nothing is returned; one run of the Schedule returns it.
 */
describe('dynamic accounts: returns run on a Temporal Schedule', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let schedule: ScheduleHandle;
  before(async () => {
    stack = await startStack(
      {
        CONFIRMATION_WINDOW: '3s',
        CONFIRMATION_POLL_INTERVAL: '500ms',
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
    schedule = stack.infra.temporal.schedule.getHandle(dynamicAccountReturnsScheduleId(stack.config.TEMPORAL_TASK_QUEUE));
  });
  after(() => stack.close());

  const status = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey })).body.Status as string;
  /** An account expiring in a second, once the worker's expiry loop has marked it expired. */
  async function expiredByTheLoop(): Promise<void> {
    const account = await provisionAccount(stack, tenant.apiKey, { amountPolicy: 'any', expiresInSeconds: 1 });
    await eventually(async () => (await status(account)) === 'expired', { what: 'the expiry loop to mark an account expired' });
  }

  it('the worker has a Schedule starting dynamicAccountReturnsWorkflow every DYNAMIC_ACCOUNT_RETURNS_INTERVAL', async () => {
    const described = await schedule.describe();
    assert.equal(described.action.type, 'startWorkflow');
    assert.deepEqual(
      [described.action.workflowType, described.action.taskQueue, described.spec.intervals?.[0]?.every],
      ['dynamicAccountReturnsWorkflow', stack.config.TEMPORAL_TASK_QUEUE, stack.config.DYNAMIC_ACCOUNT_RETURNS_INTERVAL],
    );
  });

  it('a confirmed mismatched payment is returned once, by a run of the Schedule, and not by the loops meanwhile', async () => {
    await schedule.pause('the test runs it by hand');
    const account = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '100.00', amountPolicy: 'exact', onMismatch: 'return' });
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 60, fee: 0.5, senderAccountNumber: PAYER_ACCOUNT },
    });
    assert.equal(sent.body.delivery.status, 200, sent.text);
    const line = await eventually(
      async () =>
        (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.find(
          (candidate: { entry: { ProviderTxnRef: string; Status: string } }) =>
            candidate.entry.ProviderTxnRef === sent.body.transactionId && candidate.entry.Status === 'confirmed',
        )?.entry,
      { what: 'the payment confirmed' },
    );
    // Two accounts expired one after the other: a whole pass of the worker's loops ran after the confirmation.
    await expiredByTheLoop();
    await expiredByTheLoop();
    assert.deepEqual(await stack.infra.db('settlements').where({ account_id: account.ID }).select('id'), [], 'no payout while paused');
    assert.equal(await stack.infra.db('dynamic_account_returns').where({ entry_id: line.ID }).first(), undefined);

    const runsBefore = new Set((await schedule.describe()).info.recentActions.map((action) => action.action.workflow.workflowId));
    await schedule.trigger();
    const result = await eventually(
      async () => {
        const run = (await schedule.describe()).info.recentActions.find((action) => !runsBefore.has(action.action.workflow.workflowId));
        return run ? stack.infra.temporal.workflow.getHandle(run.action.workflow.workflowId).result() : null;
      },
      { what: 'the triggered run' },
    );
    assert.deepEqual(result as DynamicAccountReturnsResult, { found: 1 });
    const returned = await stack.infra.db('dynamic_account_returns').where({ entry_id: line.ID }).first('status', 'merchant_tx_ref');
    const payouts = await stack.infra
      .db('settlements')
      .where({ account_id: account.ID })
      .select('merchant_tx_ref', 'amount', 'account_number');
    assert.deepEqual(payouts, [{ merchant_tx_ref: returned.merchant_tx_ref, amount: '5950', account_number: PAYER_ACCOUNT }], 'one payout');
    assert.equal(returned.status, 'returned');
    const told = await stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId, type: 'payment.mismatch_returned' })
      .whereRaw("data->>'accountRef' = ?", [account.AccountRef])
      .pluck('data');
    assert.deepEqual(
      told.map((data: { merchantTxRef: string }) => data.merchantTxRef),
      [returned.merchant_tx_ref],
    );
  });
});
