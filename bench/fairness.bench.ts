import { performance } from 'node:perf_hooks';
import { call } from '../test/helpers/http';
import { startReceiver } from '../test/helpers/receiver';
import { provisionAccounts, sleep, type BenchContext } from './context';
import { runLoad } from './load';
import type { SignedEvent } from './paced-sender';
import { ensureWorker, pipelineSample, waitForDrainedPipeline } from './pipeline';
import { fixed, writeResult, type Row } from './report';

const ACCOUNTS = 100;
const DELIVERY_TIMEOUT_MS = 30 * 60_000;

/**
 * Another tenant's delivery after a burst: one tenant's `--burst` (15,000) payments replayed at
 * concurrency 32, then a payment to a second tenant's account with a callback, timed from that tenant's
 * webhook (the sandbox sends it) to its `payment.received` arriving at the tenant's receiver.
 */
export async function fairnessBenchmark(ctx: BenchContext): Promise<Row[]> {
  await ensureWorker(ctx);
  await waitForDrainedPipeline(ctx, 'fairness');
  const busy = await provisionAccounts(ctx, ACCOUNTS);
  const events: SignedEvent[] = [];
  for (let made = 0; made < ctx.options.burst; made += 10_000) {
    const batch = await call(ctx.sys.sandboxUrl, 'POST', '/sandbox/payments/batch', {
      body: { accountRefs: busy.map((account) => account.AccountRef), count: Math.min(10_000, ctx.options.burst - made), amount: 1010 },
    });
    events.push(...(batch.body.events as SignedEvent[]));
  }
  const other = JSON.parse(await ctx.sys.cli('tenant:create', '--name', 'Fairness Other Tenant', '--json')) as { apiKey: string };
  const receiver = await startReceiver([200]);
  try {
    const provisioned = await call(ctx.sys.apiUrl, 'POST', '/v1/accounts', {
      apiKey: other.apiKey,
      body: { externalRef: 'fairness-other', name: 'Other Customer', callbackUrl: receiver.url },
    });
    const otherRef = (provisioned.body as { AccountRef: string }).AccountRef;

    let next = 0;
    const burstStarted = performance.now();
    const burst = await runLoad(ctx.sys.apiUrl, {
      connections: 32,
      amount: events.length,
      next: () => {
        const event = events[next++ % events.length]!;
        return {
          method: 'POST',
          path: '/webhooks/provider',
          body: event.body,
          headers: { 'Content-Type': 'application/json', ...event.headers },
        };
      },
    });
    const burstS = (performance.now() - burstStarted) / 1000;
    const atBurstEnd = await pipelineSample(ctx);

    const sentAt = Date.now();
    const sent = await call(ctx.sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: otherRef, amount: 5025 } });
    if ((sent.body as { delivery: { status: number } }).delivery.status !== 200)
      throw new Error("the other tenant's webhook was not accepted");
    const deadline = sentAt + DELIVERY_TIMEOUT_MS;
    while (receiver.calls.length === 0 && Date.now() < deadline) await sleep(100);
    const deliveredS = receiver.calls.length > 0 ? (receiver.calls[0]!.at - sentAt) / 1000 : null;
    writeResult('fairness', {
      burst: events.length,
      burstS,
      burstOk: burst.ok,
      backlogAtBurstEnd: atBurstEnd.backlog,
      pendingAtBurstEnd: atBurstEnd.pending,
      queuedAtBurstEnd: atBurstEnd.queued,
      claimedAtBurstEnd: atBurstEnd.claimed,
      oldestQueuedAtBurstEndS: atBurstEnd.oldestQueuedS,
      deliveredS,
    });
    return [
      {
        benchmark: 'fairness',
        measure: `burst: ${events.length} payments to one tenant, concurrency 32: s (non-2xx)`,
        value: `${fixed(burstS)} (${burst.non2xx + burst.errors})`,
        target: '-',
        meets: null,
      },
      {
        benchmark: 'fairness',
        measure:
          'backlog at the end of the burst: outbox starts / pending confirmations (queued for a batch, held by batches; oldest queued, s)',
        value: `${atBurstEnd.backlog} / ${atBurstEnd.pending} (${atBurstEnd.queued}, ${atBurstEnd.claimed}; ${fixed(atBurstEnd.oldestQueuedS)})`,
        target: '-',
        meets: null,
      },
      {
        benchmark: 'fairness',
        measure: "another tenant's delivery after the burst: its webhook -> callback received, s",
        value: deliveredS === null ? `none within ${DELIVERY_TIMEOUT_MS / 60_000} min` : fixed(deliveredS, 1),
        target: '<= 5 s',
        meets: deliveredS !== null && deliveredS <= 5,
      },
    ];
  } finally {
    await receiver.close();
  }
}
