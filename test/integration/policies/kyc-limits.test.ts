import assert from 'node:assert/strict';
import { allowedCreditSql, heldOfCreditSql, heldReasonSql, judgesCreditSql } from '../../../src/policies/kyc-limits/credit-limits';
import {
  dailyPayoutAllowsSql,
  dailyPayoutDecision,
  dailyPayoutRefusal,
  usedTodaySql,
} from '../../../src/policies/kyc-limits/daily-payout-limit';
import { sqlCases } from '../../helpers/sql-cases';

/**
 * The credit judgement as docs/kyc-limits.md states it, credit after credit: the part over the single-credit limit is
 * held, and of the rest what would take the unheld balance over the balance limit (never lowering a balance already
 * over it); a payment held whole for another reason takes no room.
 */
function heldByTheRule(
  customer: { unheld: bigint; singleCredit: bigint | null; balance: bigint | null },
  credits: Array<{ amount: bigint; heldWhole?: boolean }>,
): bigint[] {
  let unheld = customer.unheld;
  return credits.map(({ amount, heldWhole }) => {
    if (heldWhole) return amount;
    const allowed = customer.singleCredit !== null && amount > customer.singleCredit ? customer.singleCredit : amount;
    let raised = unheld + allowed;
    if (customer.balance !== null) raised = raised > customer.balance ? (unheld > customer.balance ? unheld : customer.balance) : raised;
    const held = amount - (raised - unheld);
    unheld = raised;
    return held;
  });
}

describe('policies: KYC limits', () => {
  const sql = sqlCases();
  before(() => sql.open());
  after(() => sql.close());

  it('holds the part of each credit over the single-credit and balance limits, in posting order, as the rule does credit after credit', async () => {
    const customers: Array<{
      unheld: bigint;
      singleCredit: bigint | null;
      balance: bigint | null;
      credits: Array<{ amount: bigint; heldWhole?: boolean }>;
    }> = [
      { unheld: 0n, singleCredit: 5_000_000n, balance: 30_000_000n, credits: [{ amount: 6_000_000n }, { amount: 4_000_000n }] },
      {
        unheld: 28_000_000n,
        singleCredit: 5_000_000n,
        balance: 30_000_000n,
        credits: [{ amount: 1_000_000n }, { amount: 1_500_000n }, { amount: 700n }],
      },
      // Already over the balance limit (a tier lowered): nothing more counts, nothing is taken back.
      { unheld: 35_000_000n, singleCredit: null, balance: 30_000_000n, credits: [{ amount: 100n }] },
      { unheld: 0n, singleCredit: null, balance: null, credits: [{ amount: 900_000_000n }] },
      { unheld: 0n, singleCredit: 10_000_000n, balance: null, credits: [{ amount: 10_000_001n }, { amount: 10_000_000n }] },
      // A payment held whole to return to its payer leaves the room for the next one.
      {
        unheld: 29_000_000n,
        singleCredit: 5_000_000n,
        balance: 30_000_000n,
        credits: [{ amount: 2_000_000n, heldWhole: true }, { amount: 1_500_000n }],
      },
    ];
    const cases = customers.flatMap((customer, id) =>
      customer.credits.map((credit, index) => ({
        customer: id,
        ord: index + 1,
        amount: credit.amount,
        held_whole: credit.heldWhole === true,
        unheld0: customer.unheld,
        single_credit: customer.singleCredit,
        balance_limit: customer.balance,
      })),
    );
    const allowed = `CASE WHEN v.held_whole THEN 0 ELSE ${allowedCreditSql({ amount: 'v.amount', singleCredit: 'v.single_credit' })} END`;
    const rows = await sql.rows<{ customer: number; ord: number; held: string }>(
      `SELECT s.customer, s.ord,
              ${heldOfCreditSql({ amount: 's.amount', unheldBefore: 's.unheld0', balanceLimit: 's.balance_limit', allowed: 's.allowed', allowedRun: 's.allowed_run' })} AS held
         FROM (SELECT v.*, ${allowed} AS allowed, sum(${allowed}) OVER (PARTITION BY v.customer ORDER BY v.ord) AS allowed_run
                 FROM jsonb_to_recordset(CAST(:cases AS jsonb))
                      AS v(customer int, ord int, amount bigint, held_whole boolean, unheld0 bigint, single_credit bigint, balance_limit bigint)) s
        ORDER BY s.customer, s.ord`,
      cases,
    );
    assert.deepEqual(
      rows.map((row) => [row.customer, row.ord, BigInt(row.held)]),
      customers.flatMap((customer, id) => heldByTheRule(customer, customer.credits).map((held, index) => [id, index + 1, held])),
    );
    // The figures themselves, for the first customers: 10,000 over the single-credit limit; then the balance limit's 5.
    assert.deepEqual(heldByTheRule(customers[0]!, customers[0]!.credits), [1_000_000n, 0n]);
    assert.deepEqual(heldByTheRule(customers[1]!, customers[1]!.credits), [0n, 500_000n, 700n]);
  });

  it('names the limit that explains a held part: the single-credit limit when the part over it alone accounts for it, else the balance limit', async () => {
    const single = 5_000_000n;
    const balance = 30_000_000n;
    const cases = [
      // Over the single-credit limit only: 10,000 held of 60,000.
      { unheld: 0n, singleCredit: single, amount: 6_000_000n, reason: 'single_credit', limit: single },
      // Over the balance limit only: 5,000 of 15,000 would pass 300,000.
      { unheld: 29_000_000n, singleCredit: single, amount: 1_500_000n, reason: 'balance', limit: balance },
      // Over both: the single-credit limit's 10,000 does not account for the 40,000 held.
      { unheld: 28_000_000n, singleCredit: single, amount: 6_000_000n, reason: 'balance', limit: balance },
      // No single-credit limit: only the balance limit can explain it.
      { unheld: 29_000_000n, singleCredit: null, amount: 6_000_000n, reason: 'balance', limit: balance },
    ];
    const allowed = allowedCreditSql({ amount: 'v.amount', singleCredit: 'v.single_credit' });
    const held = heldOfCreditSql({
      amount: 'v.amount',
      unheldBefore: 'v.unheld0',
      balanceLimit: 'v.balance_limit',
      allowed,
      allowedRun: allowed,
    });
    const why = heldReasonSql({
      amount: 's.amount',
      allowed: 's.allowed',
      held: 's.held',
      singleCredit: 's.single_credit',
      balanceLimit: 's.balance_limit',
    });
    const rows = await sql.rows<{ held: string; reason: string; limit_amount: string }>(
      `SELECT s.held, ${why.reason} AS reason, ${why.limitAmount} AS limit_amount
         FROM (SELECT v.*, ${allowed} AS allowed, ${held} AS held
                 FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(amount bigint, unheld0 bigint, single_credit bigint, balance_limit bigint, n int)) s
        ORDER BY s.n`,
      cases.map((item) => ({ amount: item.amount, unheld0: item.unheld, single_credit: item.singleCredit, balance_limit: balance })),
    );
    assert.deepEqual(
      rows.map((row) => [BigInt(row.held), row.reason, BigInt(row.limit_amount)]),
      cases.map((item) => [
        heldByTheRule({ unheld: item.unheld, singleCredit: item.singleCredit, balance }, [item])[0],
        item.reason,
        item.limit,
      ]),
    );
    assert.deepEqual(
      rows.map((row) => BigInt(row.held)),
      [1_000_000n, 500_000n, 4_000_000n, 5_000_000n],
    );
  });

  it("judges only new money to the customer: payments, restorations and transfers' receiving sides, not money between its own accounts", async () => {
    const kinds = ['payment', 'adjustment', 'transfer', 'settlement', 'reversal'];
    const cases = kinds.flatMap((kind) => [true, false].map((newToCustomer) => ({ kind, new_to_customer: newToCustomer })));
    const rows = await sql.rows<{ judged: boolean }>(
      `SELECT ${judgesCreditSql({ kind: 'v.kind', newToCustomer: 'v.new_to_customer' })} AS judged
         FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(kind text, new_to_customer boolean, n int)
        ORDER BY v.n`,
      cases,
    );
    assert.deepEqual(
      rows.map((row) => row.judged),
      cases.map((item) => item.new_to_customer && ['payment', 'adjustment', 'transfer'].includes(item.kind)),
    );
  });

  it('allows and refuses the same payouts against the daily payout limit in SQL and in TypeScript, counting only today', async () => {
    const cases = [
      { limit: null, usedToday: 0n, today: true, amount: 900_000_000n },
      { limit: 5_000_000n, usedToday: 0n, today: true, amount: 5_000_000n },
      { limit: 5_000_000n, usedToday: 0n, today: true, amount: 5_000_001n },
      { limit: 5_000_000n, usedToday: 4_000_000n, today: true, amount: 1_000_000n },
      { limit: 5_000_000n, usedToday: 4_000_000n, today: true, amount: 1_000_001n },
      // Yesterday's payouts do not count today.
      { limit: 5_000_000n, usedToday: 4_000_000n, today: false, amount: 5_000_000n },
      { limit: 0n, usedToday: 0n, today: true, amount: 1n },
    ];
    const rows = await sql.rows<{ allowed: boolean; used_today: string }>(
      `SELECT ${dailyPayoutAllowsSql({ amount: 'v.amount', limit: 'v.daily_limit', usedToday: usedTodaySql({ day: 'v.day', dayTotal: 'v.day_total' }) })} AS allowed,
              ${usedTodaySql({ day: 'v.day', dayTotal: 'v.day_total' })} AS used_today
         FROM jsonb_to_recordset(CAST(:cases AS jsonb)) AS v(daily_limit bigint, day date, day_total bigint, amount bigint, n int)
        ORDER BY v.n`,
      cases.map((item) => ({
        daily_limit: item.limit,
        // The customer's running day as the ledger keeps it: today's date in Africa/Lagos, or an earlier one.
        day: new Date(Date.now() + 3_600_000 - (item.today ? 0 : 86_400_000)).toISOString().slice(0, 10),
        day_total: item.usedToday,
        amount: item.amount,
      })),
    );
    for (const [index, item] of cases.entries()) {
      const standing = { tier: 1, limit: item.limit, usedToday: item.today ? item.usedToday : 0n };
      const decision = dailyPayoutDecision(standing, item.amount);
      const row = rows[index]!;
      assert.equal(BigInt(row.used_today), standing.usedToday, `case ${index}: the day counted`);
      assert.equal(row.allowed, decision.allowed, `case ${index}: SQL and TypeScript agree`);
      assert.equal(decision.allowed, item.limit === null || standing.usedToday + item.amount <= item.limit, `case ${index}`);
      if (!decision.allowed)
        assert.equal(decision.message, dailyPayoutRefusal({ tier: 1, limit: item.limit!, usedToday: standing.usedToday }));
    }
    assert.equal(
      dailyPayoutRefusal({ tier: 1, limit: 5_000_000n, usedToday: 4_000_000n }),
      'amount exceeds the tier 1 daily payout limit of 50000.00 (10000.00 left today, Africa/Lagos)',
    );
  });
});
