import assert from 'node:assert/strict';
import { cliTenant } from '../e2e/tenant';
import { eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import {
  assertLedgerVerifies,
  balanceOf,
  fundedAccount,
  RESILIENCE_TIMINGS,
  sandboxTransfer,
  settle,
  transferInStatus,
  waitUntilWorkflowIdles,
} from './scenario-steps';
import { settlementWorkflowId } from '../../src/contracts/settlement.contract';
import { magicAccountNumber } from '../helpers/sandbox-values';

describe('resilience: the worker killed (SIGKILL) in the middle of settlements', () => {
  let sys: RunningSystem | undefined;

  after(async () => {
    await sys?.stop();
  });

  it('after a restart, each settlement pays out exactly once and ends in the right state with the right attempt count', async () => {
    // The retry pause and the processing time are long enough that the kill lands inside them; polls are
    // sparse so it rarely lands inside a lookup.
    sys = await startSystem({
      ...RESILIENCE_TIMINGS,
      SETTLEMENT_RETRY_SCHEDULE: '3s',
      SETTLEMENT_POLL_INTERVAL: '2s',
      SANDBOX_PROCESSING_TIME: '8s',
    });
    const running = sys;
    const { apiKey } = await cliTenant(running, 'Resilience worker kill');
    const [processingAccount, retryingAccount] = await Promise.all([fundedAccount(running, apiKey), fundedAccount(running, apiKey)]);

    const processing = await settle(running, apiKey, processingAccount.AccountRef, magicAccountNumber('processingThenSucceeds', '000000'));
    const retrying = await settle(running, apiKey, retryingAccount.AccountRef, magicAccountNumber('failsTwiceThenSucceeds', '000000'));
    // 5555: PROCESSING at the provider, the workflow waiting for news. 2222: its first attempt has failed and
    // the workflow sleeps before the second.
    await waitUntilWorkflowIdles(
      running,
      settlementWorkflowId(processing),
      async () => (await sandboxTransfer(running, processing)).submissions[0]?.status === 'PROCESSING',
      '5555 to wait while PROCESSING',
    );
    await waitUntilWorkflowIdles(
      running,
      settlementWorkflowId(retrying),
      async () => (await sandboxTransfer(running, retrying)).submissions.map((submission) => submission.status).join() === 'PAYMENT_FAILED',
      '2222 to sleep after its first attempt failed',
    );
    await running.kill('worker');
    assert.equal((await sandboxTransfer(running, processing)).payouts, 0, 'the kill came too late: 5555 had already been paid out');

    // While no worker runs, the provider settles the 5555 transfer and its webhook reaches the API.
    await eventually(async () => (await sandboxTransfer(running, processing)).payouts === 1, { what: 'the provider to pay 5555 out' });
    await running.start('worker');

    const processed = await transferInStatus(running, apiKey, processing, 'success');
    const retried = await transferInStatus(running, apiKey, retrying, 'success');
    assert.equal(processed.attemptCount, 1);
    assert.equal(retried.attemptCount, 3);
    const [atProviderProcessing, atProviderRetrying] = [
      await sandboxTransfer(running, processing),
      await sandboxTransfer(running, retrying),
    ];
    assert.equal(atProviderProcessing.payouts, 1);
    assert.equal(atProviderProcessing.submissions.length, 1);
    assert.equal(atProviderRetrying.payouts, 1);
    assert.deepEqual(
      atProviderRetrying.submissions.map((submission) => submission.status),
      ['PAYMENT_FAILED', 'PAYMENT_FAILED', 'SUCCESS'],
    );
    assert.equal(await balanceOf(running, apiKey, processingAccount.AccountRef), '7500.00');
    assert.equal(await balanceOf(running, apiKey, retryingAccount.AccountRef), '7500.00');
    await assertLedgerVerifies(running.env);
  });
});
