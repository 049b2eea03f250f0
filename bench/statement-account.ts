import { provisionAccounts, type BenchContext } from './context';

/**
 * Seeds `n` confirmed entries in one SQL statement, computing seq and the to-date columns exactly as
 * the posting engine would (three credits of 100.00, then a debit of 50.00, repeating). Each entry is its own
 * balanced transaction: a payment's counter posting is on clearing, a payout's on payouts in transit; each payment
 * credit holds its provider transaction's key, as a posting writes it. The entries are spread evenly over the
 * `months` months ending now (the last day before now with one month), each month's in its own partition, made first.
 */
export async function seed(ctx: BenchContext, account: { ID: string }, n: number, months = 1): Promise<void> {
  await ctx.db.raw(
    `SELECT history_month_partition('ledger_entries', CAST(m AS date))
       FROM generate_series(date_trunc('month', (now() - CAST(:months AS int) * interval '1 month') AT TIME ZONE 'Africa/Lagos'),
                            date_trunc('month', now() AT TIME ZONE 'Africa/Lagos'), interval '1 month') AS m`,
    { months },
  );
  await ctx.db.raw(
    `WITH seeded AS (
       INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, status, narration,
                                   provider_txn_ref, transaction_group_id, transaction_id, balance_after, credits_to_date, debits_to_date, created_at,
                                   clearing_amount, provider_fees_amount, payouts_in_transit_amount)
       SELECT gen_random_uuid(), :tenant, :account, g,
              CASE WHEN g % 4 = 0 THEN 'debit' ELSE 'credit' END,
              CASE WHEN g % 4 = 0 THEN 'settlement' ELSE 'payment' END,
              CASE WHEN g % 4 = 0 THEN 5000 ELSE 10000 END, 0, 'NGN', 'confirmed', 'seeded',
              CASE WHEN g % 4 = 0 THEN NULL ELSE :account || '-' || g END,
              gen_random_uuid(), gen_random_uuid(),
              (g - g / 4) * 10000 - (g / 4) * 5000, (g - g / 4) * 10000, (g / 4) * 5000,
              now() - CAST(:span AS int) * interval '1 second' + g * (CAST(:span AS int) * interval '1 second' / CAST(:n AS bigint)),
              CASE WHEN g % 4 = 0 THEN 0 ELSE -10000 END, 0, CASE WHEN g % 4 = 0 THEN 5000 ELSE 0 END
         FROM generate_series(1, :n::bigint) AS g
       RETURNING id, tenant_id, kind, provider_txn_ref, created_at
     )
     INSERT INTO ledger_payment_credit_keys (provider_txn_ref, tenant_id, entry_id, created_at)
     SELECT provider_txn_ref, tenant_id, id, created_at FROM seeded WHERE kind = 'payment'`,
    { tenant: ctx.tenantId, account: account.ID, n, span: months === 1 ? 86_400 : months * 30 * 86_400 },
  );
  const credits = (BigInt(n) - BigInt(n) / 4n) * 10000n;
  const debits = (BigInt(n) / 4n) * 5000n;
  await ctx
    .db('virtual_accounts')
    .where({ id: account.ID })
    .update({ total_credits: credits, total_debits: debits, ledger_balance: credits - debits, last_seq: n });
}

const seeded = new WeakMap<BenchContext, Promise<{ ID: string; AccountRef: string }>>();

/**
 * One account with `--entries` (1,000,000) entries per run, over `--history-months` (1) months, shared by the statement
 * benchmark and the sustained one's statement probe, so the run seeds it once.
 */
export function bigStatementAccount(ctx: BenchContext): Promise<{ ID: string; AccountRef: string }> {
  let account = seeded.get(ctx);
  if (!account) {
    account = (async () => {
      const [large] = await provisionAccounts(ctx, 1);
      await seed(ctx, large!, ctx.options.entries, ctx.options.historyMonths);
      // What autovacuum would do after a bulk load, done now so that it does not run during the benchmarks that follow.
      await ctx.db.raw('VACUUM (ANALYZE) ledger_entries');
      return large!;
    })();
    seeded.set(ctx, account);
  }
  return account;
}
