import assert from 'node:assert/strict';
import { createTemporalClient } from '../../src/temporal/client';
import { SETTLEMENT_STATUS } from '../../src/contracts/search-attributes';
import { call, eventually } from '../helpers/http';
import { system } from './system';
import { cliTenant, provision, statementLines, type E2eTenant } from './tenant';
import { settlementWorkflowId } from '../../src/contracts/settlement.contract';
import { magicAccountNumber } from '../helpers/sandbox-values';

interface Case {
  accountNumber: string;
  status: 'success' | 'failed' | 'refunded';
  attempts: number;
  payouts: number;
  /** The statement after the funding credit: [kind, direction, status] of each entry. */
  entries: string[][];
}

const debitConfirmed = [['settlement', 'debit', 'confirmed']];
const debitReversed = [
  ['settlement', 'debit', 'reversed'],
  ['reversal', 'credit', 'confirmed'],
];

const CASES: Case[] = [
  { accountNumber: '0123456789', status: 'success', attempts: 1, payouts: 1, entries: debitConfirmed },
  {
    accountNumber: magicAccountNumber('failsEverySubmission', '000000'),
    status: 'failed',
    attempts: 5,
    payouts: 0,
    entries: debitReversed,
  },
  {
    accountNumber: magicAccountNumber('failsTwiceThenSucceeds', '000000'),
    status: 'success',
    attempts: 3,
    payouts: 1,
    entries: debitConfirmed,
  },
  {
    accountNumber: magicAccountNumber('refundedAfterSuccess', '000000'),
    status: 'refunded',
    attempts: 1,
    payouts: 1,
    entries: debitReversed,
  },
  { accountNumber: magicAccountNumber('submitTimesOut', '000000'), status: 'success', attempts: 1, payouts: 1, entries: debitConfirmed },
  {
    accountNumber: magicAccountNumber('processingThenSucceeds', '000000'),
    status: 'success',
    attempts: 1,
    payouts: 1,
    entries: debitConfirmed,
  },
  // The provider's bad days: a timeout + lookup lag + 409 duplicate, a pending code, an unexplained 400,
  // a refund of the failed first attempt, a refund webhook ahead of the lookup.
  {
    accountNumber: magicAccountNumber('hiddenAfterTimeout', '000000'),
    status: 'success',
    attempts: 1,
    payouts: 1,
    entries: debitConfirmed,
  },
  { accountNumber: magicAccountNumber('pendingCode', '000000'), status: 'success', attempts: 1, payouts: 1, entries: debitConfirmed },
  {
    accountNumber: magicAccountNumber('errorAfterRecording', '000000'),
    status: 'success',
    attempts: 1,
    payouts: 1,
    entries: debitConfirmed,
  },
  {
    accountNumber: magicAccountNumber('failedAttemptRefunded', '000000'),
    status: 'success',
    attempts: 2,
    payouts: 1,
    entries: debitConfirmed,
  },
  {
    accountNumber: magicAccountNumber('refundedWhileLookupShowsSuccess', '000000'),
    status: 'refunded',
    attempts: 1,
    payouts: 1,
    entries: debitReversed,
  },
];

describe('e2e: settlements to the sandbox magic account numbers', () => {
  let tenant: E2eTenant;
  /** A paid settlement whose refund watch runs out while the other cases run: a refund comes after it. */
  let watched: Promise<{ account: { AccountRef: string }; ref: string }>;

  /** Funds an account through a real signed payment the provider knows, and waits until it is spendable. */
  async function fundedAccount(): Promise<{ AccountRef: string }> {
    const sys = await system();
    const account = await provision(sys, tenant.apiKey);
    await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 10_010, fee: 10 } });
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', {
      what: 'funding',
    });
    return account;
  }

  /** A settlement of 100.00 to a plain destination, paid at once; its reference. */
  async function paidSettlement(): Promise<{ account: { AccountRef: string }; ref: string }> {
    const sys = await system();
    const account = await fundedAccount();
    const settle = await call(sys.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '100.00', bankCode: '044', accountNumber: '0123456789' },
    });
    assert.equal(settle.status, 202, settle.text);
    return { account, ref: settle.body.merchantTxRef as string };
  }

  before(async () => {
    tenant = await cliTenant(await system(), 'Settlements E2E');
    watched = paidSettlement();
    // Its failure is reported by its test; until then it must not count as unhandled.
    watched.catch(() => undefined);
  });

  it('ends each transfer in the right state, pays out exactly once per success, and shows it in the statement', async () => {
    const sys = await system();
    const runs = await Promise.all(
      CASES.map(async (testCase) => {
        const account = await fundedAccount();
        const settle = await call(sys.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
          apiKey: tenant.apiKey,
          body: { amount: '2500.00', bankCode: '044', accountNumber: testCase.accountNumber, narration: `to ${testCase.accountNumber}` },
        });
        assert.equal(settle.status, 202, settle.text);
        const ref = settle.body.merchantTxRef as string;
        const transfer = await eventually(
          async () => {
            const current = (await call(sys.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body;
            return current.status === testCase.status ? current : null;
          },
          { what: `${testCase.accountNumber} → ${testCase.status}` },
        );
        return { testCase, account, ref, transfer };
      }),
    );
    for (const { testCase, account, ref, transfer } of runs) {
      assert.equal(transfer.attemptCount, testCase.attempts, testCase.accountNumber);
      const atSandbox = (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;
      assert.equal(atSandbox.payouts, testCase.payouts, `${testCase.accountNumber} payouts`);
      const lines = await statementLines(sys, tenant.apiKey, account.AccountRef);
      assert.deepEqual(
        lines.slice(1).map((line) => [line.entry.Kind, line.entry.Direction, line.entry.Status]),
        testCase.entries,
        testCase.accountNumber,
      );
      const expectedBalance = testCase.status === 'success' ? '7500.00' : '10000.00';
      assert.equal(lines.at(-1)!.runningBalance, expectedBalance, testCase.accountNumber);
    }
  });

  it('a payout_refund webhook after the watch window has closed still reverses the debit', async () => {
    const sys = await system();
    // Started in `before`, so its refund watch runs out while the first case runs.
    const { account, ref } = await watched;
    await eventually(
      async () => (await call(sys.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body.status === 'success',
      { what: `${ref} to succeed` },
    );
    // The refund must arrive after the workflow has stopped watching for one.
    const temporal = createTemporalClient({ TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!, TEMPORAL_NAMESPACE: 'default' });
    try {
      const handle = temporal.workflow.getHandle(settlementWorkflowId(ref));
      await eventually(async () => (await handle.describe()).status.name === 'COMPLETED', {
        intervalMs: 250,
        what: 'the end of the refund watch',
      });
      assert.equal((await handle.describe()).typedSearchAttributes.get(SETTLEMENT_STATUS), 'success');
      const refunded = await call(sys.sandboxUrl, 'POST', `/sandbox/transfers/${ref}-1/refund`);
      assert.equal(refunded.status, 200);
      const transfer = await eventually(
        async () => {
          const current = (await call(sys.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body;
          return current.status === 'refunded' ? current : null;
        },
        { what: 'the late refund' },
      );
      assert.equal(transfer.status, 'refunded');
      // The settlement's id gets a new run that reads the database: its latest run shows the refund.
      await eventually(
        async () =>
          (await temporal.workflow.getHandle(settlementWorkflowId(ref)).describe()).typedSearchAttributes.get(SETTLEMENT_STATUS) ===
          'refunded',
        {
          what: 'SettlementStatus refunded on the latest run',
        },
      );
    } finally {
      await temporal.connection.close();
    }
    const lines = await statementLines(sys, tenant.apiKey, account.AccountRef);
    assert.deepEqual(
      lines.slice(1).map((line) => [line.entry.Kind, line.entry.Direction, line.entry.Status]),
      debitReversed,
    );
    assert.equal(lines.at(-1)!.runningBalance, '10000.00');
  });
});
