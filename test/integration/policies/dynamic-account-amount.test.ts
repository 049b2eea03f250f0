import assert from 'node:assert/strict';
import {
  AMOUNT_POLICIES,
  MISMATCH_HANDLINGS,
  closesAccountSql,
  closesOnPaymentSql,
  heldToReturnReasonSql,
  heldToReturnSql,
  mismatchActionSql,
  varianceSql,
} from '../../../src/policies/dynamic-account-amount/amount-policy';
import { closesAccount, mismatchActionOf, varianceOf } from '../../helpers/payment-variance-rule';
import { sqlCases } from '../../helpers/sql-cases';

describe("policies: a dynamic account's amount policy", () => {
  const sql = sqlCases();
  before(() => sql.open());
  after(() => sql.close());

  it('judges payments in SQL as the variance rule does, every policy and handling: variance, action, hold to return, closing', async () => {
    const cases: Array<{
      policy: (typeof AMOUNT_POLICIES)[number];
      onMismatch: (typeof MISMATCH_HANDLINGS)[number];
      expected: bigint | null;
      net: bigint;
      fee: bigint;
      state: 'active' | 'expired' | 'past';
    }> = [];
    for (const policy of AMOUNT_POLICIES) {
      for (const onMismatch of MISMATCH_HANDLINGS) {
        for (const expected of policy === 'any' ? [null, 10_000n] : [10_000n]) {
          for (const [net, fee] of [
            [9_950n, 50n],
            [9_949n, 50n],
            [9_951n, 50n],
            [10_000n, 0n],
          ] as const) {
            for (const state of ['active', 'expired', 'past'] as const) cases.push({ policy, onMismatch, expected, net, fee, state });
          }
        }
      }
    }
    const judged = {
      amountPolicy: 'j.amount_policy',
      onMismatch: 'j.on_mismatch',
      expectedAmount: 'j.expected_amount',
      variance: 'j.variance',
    };
    const rows = await sql.rows<{
      variance: string;
      action: string;
      closes_on_payment: boolean;
      held_to_return: boolean;
      closes_account: boolean;
    }>(
      `SELECT k.variance, k.action, k.closes_on_payment,
              ${heldToReturnSql({ amountPolicy: 'k.amount_policy', onMismatch: 'k.on_mismatch', judgedReturn: `k.action = 'return'` })} AS held_to_return,
              ${closesAccountSql({ status: 'k.status', amountPolicy: 'k.amount_policy', grossMatches: 'false', judgementCloses: 'k.closes_on_payment' })} AS closes_account
         FROM (SELECT j.*, ${mismatchActionSql(judged)} AS action, ${closesOnPaymentSql(judged)} AS closes_on_payment
                 FROM (SELECT v.*,
                              ${varianceSql({ amount: 'v.amount', fee: 'v.fee', status: 'v.status', expiresAt: 'v.expires_at', expectedAmount: 'v.expected_amount', clock: 'clock_timestamp()' })} AS variance
                         FROM jsonb_to_recordset(CAST(:cases AS jsonb))
                              AS v(amount bigint, fee bigint, status text, expires_at timestamptz, expected_amount bigint, amount_policy text, on_mismatch text, n int)) j) k
        ORDER BY k.n`,
      cases.map((item) => ({
        amount: item.net,
        fee: item.fee,
        status: item.state === 'expired' ? 'expired' : 'active',
        expires_at: item.state === 'past' ? new Date(Date.now() - 1_000).toISOString() : new Date(Date.now() + 3_600_000).toISOString(),
        expected_amount: item.expected,
        amount_policy: item.policy,
        on_mismatch: item.onMismatch,
      })),
    );
    assert.equal(rows.length, cases.length);
    for (const [index, item] of cases.entries()) {
      const variance = varianceOf({ received: item.net + item.fee, expected: item.expected, afterExpiry: item.state !== 'active' });
      const action = mismatchActionOf(item.policy, item.onMismatch, variance);
      const closes = closesAccount(item.policy, item.onMismatch, variance, item.expected);
      const row = rows[index]!;
      assert.deepEqual(
        [row.variance, row.action, row.closes_on_payment, row.held_to_return, row.closes_account],
        [variance, action, closes, action === 'return', closes && item.state !== 'expired'],
        JSON.stringify(item, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
      );
    }
  });

  it("closes an account opened for an expected amount on a credit of that gross amount, only while it is active; never holds an ordinary account's credit", async () => {
    const rows = await sql.rows<{ closes: boolean; held: boolean }>(
      `SELECT ${closesAccountSql({ status: 'v.status', amountPolicy: 'v.amount_policy', grossMatches: 'v.gross = v.expected', judgementCloses: 'true' })} AS closes,
              ${heldToReturnSql({ amountPolicy: 'v.amount_policy', onMismatch: 'v.on_mismatch', judgedReturn: 'true' })} AS held
         FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(status text, amount_policy text, on_mismatch text, gross bigint, expected bigint, n int)
        ORDER BY v.n`,
      [
        { status: 'active', amount_policy: null, on_mismatch: null, gross: 10_000, expected: 10_000 },
        { status: 'active', amount_policy: null, on_mismatch: null, gross: 9_999, expected: 10_000 },
        { status: 'expired', amount_policy: null, on_mismatch: null, gross: 10_000, expected: 10_000 },
        { status: 'active', amount_policy: 'exact', on_mismatch: 'credit_and_flag', gross: 1, expected: 10_000 },
      ],
    );
    assert.deepEqual(
      rows.map((row) => [row.closes, row.held]),
      [
        [true, false],
        [false, false],
        [false, false],
        [true, false],
      ],
    );
  });

  it('gives a payment held to return the reason amount_mismatch and, as its limit, the expected amount (0 without one)', async () => {
    const why = heldToReturnReasonSql({ expectedAmount: 'v.expected' });
    const rows = await sql.rows<{ reason: string; limit_amount: string }>(
      `SELECT ${why.reason} AS reason, ${why.limitAmount} AS limit_amount
         FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(expected bigint, n int)
        ORDER BY v.n`,
      [{ expected: 10_000 }, { expected: null }],
    );
    assert.deepEqual(
      rows.map((row) => [row.reason, BigInt(row.limit_amount)]),
      [
        ['amount_mismatch', 10_000n],
        ['amount_mismatch', 0n],
      ],
    );
  });
});
