import { performance } from 'node:perf_hooks';
import { call } from '../test/helpers/http';
import { fund, provisionAccounts, sleep, type BenchContext } from './context';
import { quantile } from './paced-sender';
import { fixed, writeResult, type Row } from './report';

const ITEMS = 1_000;
const FINAL = ['completed', 'completed_with_failures', 'cancelled'];

interface BatchView {
  status: string;
  counts: Record<string, number>;
  items: Array<{ merchantTxRef: string | null; status: string }>;
  pagination: { nextCursor: string | null; hasMore: boolean };
}

/**
 * One tenant's batch of 1,000 payouts of 1.00 across 10 accounts, paid by the sandbox, while another
 * tenant reads its balance one request at a time: the time from the 202 to the last item final, the
 * provider calls each item cost (the sandbox counts every submit and lookup per reference), and the
 * other tenant's API latency during the batch.
 */
export async function settlementBatchBenchmark(ctx: BenchContext): Promise<Row[]> {
  const accounts = await provisionAccounts(ctx, 10);
  for (const account of accounts) await fund(ctx, account.ID, 10_000_00n);
  const other = JSON.parse(await ctx.sys.cli('tenant:create', '--name', 'Bench Other Tenant', '--json')) as { apiKey: string };
  const otherAccount = await call(ctx.sys.apiUrl, 'POST', '/v1/accounts', {
    apiKey: other.apiKey,
    body: { externalRef: 'bench-other', name: 'Other Customer' },
  });
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    reference: `bench-${i}`,
    accountRef: accounts[i % accounts.length]!.AccountRef,
    amount: '1.00',
    bankCode: '058',
    accountNumber: '0123456789',
  }));

  const started = performance.now();
  const created = await call<{ id: string }>(ctx.sys.apiUrl, 'POST', '/v1/settlement-batches', {
    apiKey: ctx.apiKey,
    body: { items },
    headers: { 'Idempotency-Key': `bench-${Date.now()}` },
  });
  if (created.status !== 202) throw new Error(`batch refused: ${created.status} ${created.text}`);
  const accepted = performance.now() - started;

  let done = false;
  const latencies: number[] = [];
  const probe = (async () => {
    while (!done) {
      const at = performance.now();
      const response = await call(ctx.sys.apiUrl, 'GET', `/v1/accounts/${otherAccount.body.AccountRef}/balance`, { apiKey: other.apiKey });
      if (response.status === 200) latencies.push(performance.now() - at);
      await sleep(50);
    }
  })();
  let batch: BatchView;
  for (;;) {
    batch = (await call<BatchView>(ctx.sys.apiUrl, 'GET', `/v1/settlement-batches/${created.body.id}?limit=1`, { apiKey: ctx.apiKey }))
      .body;
    if (FINAL.includes(batch.status)) break;
    await sleep(500);
  }
  const lastFinalS = (performance.now() - started) / 1000;
  done = true;
  await probe;

  const refs: string[] = [];
  let after = '';
  for (;;) {
    const page = (
      await call<BatchView>(ctx.sys.apiUrl, 'GET', `/v1/settlement-batches/${created.body.id}?limit=200${after ? `&after=${after}` : ''}`, {
        apiKey: ctx.apiKey,
      })
    ).body;
    refs.push(...page.items.flatMap((item) => (item.merchantTxRef ? [item.merchantTxRef] : [])));
    if (!page.pagination.hasMore) break;
    after = page.pagination.nextCursor!;
  }
  let calls = 0;
  let payouts = 0;
  for (const ref of refs) {
    const view = (await call<{ calls: unknown[]; payouts: number }>(ctx.sys.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;
    calls += view.calls.length;
    payouts += view.payouts;
  }
  const result = {
    items: ITEMS,
    status: batch.status,
    counts: batch.counts,
    acceptedMs: accepted,
    lastItemFinalS: lastFinalS,
    providerCallsPerItem: calls / refs.length,
    payouts,
    otherTenant: { requests: latencies.length, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99) },
  };
  writeResult('settlement-batch', result);
  return [
    {
      benchmark: 'settlement-batch',
      measure: `1,000-item batch: 202 in ms / last item final in s (${batch.status}, ${batch.counts.success} paid)`,
      value: `${fixed(accepted, 0)} / ${fixed(lastFinalS, 1)}`,
      target: '-',
      meets: null,
    },
    {
      benchmark: 'settlement-batch',
      measure: 'provider calls per item (submits and lookups at the sandbox); payouts',
      value: `${fixed(result.providerCallsPerItem, 2)}; ${payouts}`,
      target: `${ITEMS} payouts`,
      meets: payouts === ITEMS,
    },
    {
      benchmark: 'settlement-batch',
      measure: "another tenant's balance reads during the batch: p50 / p99 ms",
      value: `${fixed(result.otherTenant.p50Ms)} / ${fixed(result.otherTenant.p99Ms)}`,
      target: '-',
      meets: null,
    },
  ];
}
