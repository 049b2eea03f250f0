import { provisionAccounts, type BenchContext } from './context';

/**
 * Seeds `n` confirmed entries in one SQL statement, computing seq and the to-date columns exactly as
 * the posting engine would (three credits of 100.00, then a debit of 50.00, repeating). Each entry is its own
 * balanced transaction: a payment's counter posting is on clearing, a payout's on payouts in transit.
 */
export async function seed(ctx: BenchContext, account: { ID: string }, n: number): Promise<void> {
  await ctx.db.raw(
    `INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, status, narration,
                                 provider_txn_ref, transaction_group_id, transaction_id, balance_after, credits_to_date, debits_to_date, created_at,
                                 clearing_amount, provider_fees_amount, payouts_in_transit_amount)
     SELECT gen_random_uuid(), :tenant, :account, g,
            CASE WHEN g % 4 = 0 THEN 'debit' ELSE 'credit' END,
            CASE WHEN g % 4 = 0 THEN 'settlement' ELSE 'payment' END,
            CASE WHEN g % 4 = 0 THEN 5000 ELSE 10000 END, 0, 'NGN', 'confirmed', 'seeded',
            CASE WHEN g % 4 = 0 THEN NULL ELSE :account || '-' || g END,
            gen_random_uuid(), gen_random_uuid(),
            (g - g / 4) * 10000 - (g / 4) * 5000, (g - g / 4) * 10000, (g / 4) * 5000,
            now() - interval '1 day' + g * interval '1 millisecond',
            CASE WHEN g % 4 = 0 THEN 0 ELSE -10000 END, 0, CASE WHEN g % 4 = 0 THEN 5000 ELSE 0 END
       FROM generate_series(1, :n::bigint) AS g`,
    { tenant: ctx.tenantId, account: account.ID, n },
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
 * One account with `--entries` (1,000,000) entries per run, shared by the statement benchmark and the
 * sustained one's statement probe, so the run seeds it once.
 */
export function bigStatementAccount(ctx: BenchContext): Promise<{ ID: string; AccountRef: string }> {
  let account = seeded.get(ctx);
  if (!account) {
    account = (async () => {
      const [large] = await provisionAccounts(ctx, 1);
      await seed(ctx, large!, ctx.options.entries);
      // What autovacuum would do after a bulk load, done now so that it does not run during the benchmarks that follow.
      await ctx.db.raw('VACUUM (ANALYZE) ledger_entries');
      return large!;
    })();
    seeded.set(ctx, account);
  }
  return account;
}
