import assert from 'node:assert/strict';
import { cliTenant, provision, statementLines } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import {
  assertLedgerVerifies,
  balanceOf,
  fundedAccount,
  RESILIENCE_TIMINGS,
  sandboxTransfer,
  settle,
  transferInStatus,
} from './scenario-steps';
import { magicAccountNumber } from '../helpers/sandbox-values';

interface SettlementCase {
  accountNumber: string;
  status: 'success' | 'failed' | 'refunded';
  attempts: number;
  payouts: number;
}

/** The sandbox's magic destinations and a plain one; injected faults must not change any outcome. */
const CASES: SettlementCase[] = [
  { accountNumber: '0123456789', status: 'success', attempts: 1, payouts: 1 },
  { accountNumber: magicAccountNumber('failsEverySubmission', '000000'), status: 'failed', attempts: 5, payouts: 0 },
  { accountNumber: magicAccountNumber('failsTwiceThenSucceeds', '000000'), status: 'success', attempts: 3, payouts: 1 },
  { accountNumber: magicAccountNumber('refundedAfterSuccess', '000000'), status: 'refunded', attempts: 1, payouts: 1 },
  { accountNumber: magicAccountNumber('submitTimesOut', '000000'), status: 'success', attempts: 1, payouts: 1 },
  { accountNumber: magicAccountNumber('processingThenSucceeds', '000000'), status: 'success', attempts: 1, payouts: 1 },
];

const PAYMENTS = 6;

describe('resilience: the provider failing 30% of calls, with added latency', () => {
  let sys: RunningSystem | undefined;

  after(async () => {
    await sys?.stop();
  });

  it('every settlement and payment still ends in its correct terminal state, paid out exactly once when it succeeded', async () => {
    sys = await startSystem(RESILIENCE_TIMINGS);
    const running = sys;
    const { apiKey } = await cliTenant(running, 'Resilience flaky provider');
    const funded = await Promise.all(CASES.map(() => fundedAccount(running, apiKey)));
    const receiving = await provision(running, apiKey);
    // Provisioning and the bank list happen before the faults: they are the API's synchronous calls, not the workflows'.
    assert.equal((await call(running.apiUrl, 'GET', '/v1/transfers/banks', { apiKey })).status, 200);
    const faults = await call(running.sandboxUrl, 'POST', '/sandbox/faults', { body: { failureRate: 0.3, latencyMs: 50 } });
    assert.equal(faults.status, 200, faults.text);

    const refs = await Promise.all(CASES.map((testCase, i) => settle(running, apiKey, funded[i]!.AccountRef, testCase.accountNumber)));
    const payments = await Promise.all(
      Array.from({ length: PAYMENTS }, (_, i) =>
        call(running.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: receiving.AccountRef, amount: 1_010 + i, fee: 10 } }),
      ),
    );
    assert.deepEqual(
      payments.map((payment) => payment.body.delivery.status),
      payments.map(() => 200),
    );

    const transfers = await Promise.all(CASES.map((testCase, i) => transferInStatus(running, apiKey, refs[i]!, testCase.status)));
    for (const [i, testCase] of CASES.entries()) {
      assert.equal(transfers[i]!.attemptCount, testCase.attempts, `${testCase.accountNumber} attempts`);
      assert.equal((await sandboxTransfer(running, refs[i]!)).payouts, testCase.payouts, `${testCase.accountNumber} payouts`);
      assert.equal(
        await balanceOf(running, apiKey, funded[i]!.AccountRef),
        testCase.status === 'success' ? '7500.00' : '10000.00',
        `${testCase.accountNumber} balance`,
      );
    }
    const lines = await eventually(
      async () => {
        const current = await statementLines(running, apiKey, receiving.AccountRef);
        return current.every((line) => line.entry.Status === 'confirmed') ? current : null;
      },
      { what: 'every payment to be confirmed' },
    );
    assert.equal(lines.length, PAYMENTS);
    assert.equal(lines.at(-1)!.runningBalance, '6015.00');
    assert.ok(
      running.logs.worker.some((line) => line.includes('HTTP 503')),
      'no injected fault reached the worker: the scenario tested nothing',
    );
    await assertLedgerVerifies(running.env);
  });
});
