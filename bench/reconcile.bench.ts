import { uuidv7 } from '../src/ids';
import { loadConfig } from '../src/config';
import { tierDefaultsOf } from '../src/policies/kyc-limits/customer-limits';
import { createPostingEngine } from '../src/ledger/posting-engine';
import { call } from '../test/helpers/http';
import { provisionAccounts, rssMiB, sleep, type BenchContext } from './context';
import { fixed, writeResult, type Row } from './report';

const ACCOUNTS = 100;
const BATCH = 10_000;
const POSTINGS_PER_STATEMENT = 500;
const AMOUNT_NAIRA = 2_010;
const FEE_KOBO = 1_000n;

interface RecordedPayment {
  accountRef: string;
  transactionId: string;
}

/** `count` payments the provider recorded (signed, never delivered), spread over the accounts. */
async function providerPayments(ctx: BenchContext, accountRefs: string[], count: number): Promise<RecordedPayment[]> {
  const payments: RecordedPayment[] = [];
  for (let made = 0; made < count; made += BATCH) {
    const response = await call(ctx.sys.sandboxUrl, 'POST', '/sandbox/payments/batch', {
      body: { accountRefs, count: Math.min(BATCH, count - made), amount: AMOUNT_NAIRA },
    });
    if (response.status !== 200) throw new Error(`sandbox batch failed: ${response.status}`);
    for (const event of response.body.events as Array<{ body: string }>) {
      const transaction = (JSON.parse(event.body) as { data: { transaction: { transactionId: string; aliasAccountReference: string } } })
        .data.transaction;
      payments.push({ accountRef: transaction.aliasAccountReference, transactionId: transaction.transactionId });
    }
  }
  return payments;
}

/** The ledger already holds every one of them: a confirmed credit each, through the posting engine. */
async function ledgerEntries(
  ctx: BenchContext,
  accounts: Array<{ ID: string; AccountRef: string }>,
  payments: RecordedPayment[],
): Promise<void> {
  const engine = createPostingEngine(ctx.db, { tierDefaults: tierDefaultsOf(loadConfig(ctx.sys.env)) });
  const idOf = new Map(accounts.map((account) => [account.AccountRef, account.ID]));
  const byAccount = new Map<string, string[]>();
  for (const payment of payments) byAccount.set(payment.accountRef, [...(byAccount.get(payment.accountRef) ?? []), payment.transactionId]);
  for (const [accountRef, transactionIds] of byAccount) {
    for (let start = 0; start < transactionIds.length; start += POSTINGS_PER_STATEMENT) {
      const postings = transactionIds.slice(start, start + POSTINGS_PER_STATEMENT).map((transactionId) => ({
        direction: 'credit' as const,
        kind: 'payment' as const,
        amount: BigInt(AMOUNT_NAIRA) * 100n - FEE_KOBO,
        fee: FEE_KOBO,
        status: 'confirmed' as const,
        narration: 'BENCH PAYER',
        providerTxnRef: transactionId,
        transactionGroupId: uuidv7(),
      }));
      await ctx.db.transaction((trx) => engine.post(trx, idOf.get(accountRef)!, postings));
    }
  }
}

/**
 * A platform reconciliation run (the CLI's `reconcile`, the worker doing the work) over a window of
 * RECONCILE_BENCH_SIZE provider transactions (default 100,000) against as many ledger entries, all
 * matching: the time it takes and the worker's resident memory while it pages, sampled every 200 ms.
 */
export async function reconcileBenchmark(ctx: BenchContext): Promise<Row[]> {
  const size = Number(process.env.RECONCILE_BENCH_SIZE ?? 100_000);
  const accounts = await provisionAccounts(ctx, ACCOUNTS);
  const from = new Date(Date.now() - 2_000);
  process.stderr.write(`[bench] reconcile: recording ${size} provider payments and their ledger entries…\n`);
  const payments = await providerPayments(
    ctx,
    accounts.map((account) => account.AccountRef),
    size,
  );
  await ledgerEntries(ctx, accounts, payments);
  const to = new Date(Date.now() + 1_000);
  await sleep(1_000);

  const rssBefore = rssMiB(ctx, 'worker') ?? Number.NaN;
  let rssPeak = rssBefore;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssPeak = Math.max(rssPeak, rssMiB(ctx, 'worker') ?? 0);
      await sleep(200);
    }
  })();
  const started = performance.now();
  const output = await ctx.sys.cli('reconcile', '--from', from.toISOString(), '--to', to.toISOString(), '--json');
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;

  const { run } = JSON.parse(output) as {
    run: { Status: string; ProviderTransactions: number; Matched: number; Repaired: number; Reported: number; Lookups: number };
  };
  writeResult('reconcile', { size, seconds, rssBeforeMiB: rssBefore, rssPeakMiB: rssPeak, run });
  const complete = run.Status === 'succeeded' && run.ProviderTransactions === size && run.Matched === size;
  return [
    {
      benchmark: 'reconcile',
      measure: `window of ${size} provider transactions against ${size} entries (CLI run, all matching), s`,
      value: fixed(seconds),
      target: '< 60 s at 100,000',
      meets: complete && seconds < 60,
    },
    {
      benchmark: 'reconcile',
      measure: 'provider transactions matched / repaired / reported / single lookups',
      value: `${run.Matched} / ${run.Repaired} / ${run.Reported} / ${run.Lookups}`,
      target: `${size} / 0 / 0 / 0`,
      meets: complete && run.Repaired === 0 && run.Reported === 0,
    },
    { benchmark: 'reconcile', measure: 'provider transactions reconciled / s', value: fixed(size / seconds, 0), target: '-', meets: null },
    {
      benchmark: 'reconcile',
      measure: 'worker resident memory before / peak during the run, MiB',
      value: `${fixed(rssBefore, 0)} / ${fixed(rssPeak, 0)}`,
      target: '< 300 MiB',
      meets: rssPeak < 300,
    },
    {
      benchmark: 'reconcile',
      measure: 'worker resident memory the run added at its peak, MiB',
      value: fixed(rssPeak - rssBefore, 0),
      target: '-',
      meets: null,
    },
  ];
}
