import { scrape, total, type Sample } from '../test/helpers/prometheus';
import { sleep, type BenchContext } from './context';

export interface PipelineSample {
  at: number;
  samples: Sample[];
  /** Workflow starts waiting in the outbox (deliveries, settlements, refunds, reconciliation runs). */
  backlog: number;
  /** Payment credits still provisional: every confirmation taken in and not yet done. */
  pending: number;
  oldestPendingS: number;
  /** Of those, credits waiting in the batch confirmation queue for a batch to claim them… */
  queued: number;
  /** …and credits an open batch holds (being looked up, or waiting on the provider). */
  claimed: number;
  /** Age of the oldest credit still waiting for a batch: the batcher's own lag. */
  oldestQueuedS: number;
}

/** The pipeline as the API's /metrics shows it: what the benchmarks read their lag and backlog from. */
export async function pipelineSample(ctx: BenchContext): Promise<PipelineSample> {
  const samples = await scrape(ctx.sys.metricsUrl);
  return {
    at: Date.now(),
    samples,
    // Starts waiting in the outbox plus credits waiting for their confirmation: work taken in, not yet done.
    backlog: total(samples, 'nuban_outbox_backlog'),
    pending: total(samples, 'nuban_confirmations_pending'),
    oldestPendingS: total(samples, 'nuban_confirmations_oldest_pending_age_seconds'),
    queued: total(samples, 'nuban_confirmation_claims', { state: 'queued' }),
    claimed: total(samples, 'nuban_confirmation_claims', { state: 'claimed' }),
    oldestQueuedS: total(samples, 'nuban_confirmation_queue_oldest_age_seconds'),
  };
}

/** Restarts the worker if an earlier benchmark stopped it. */
export async function ensureWorker(ctx: BenchContext): Promise<void> {
  const pid = ctx.sys.pid('worker');
  const alive =
    pid !== undefined &&
    (() => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    })();
  if (!alive) await ctx.sys.start('worker');
}

/** Waits (up to `timeoutMs`) until nothing waits in the outbox and no credit waits for confirmation. */
export async function waitForDrainedPipeline(ctx: BenchContext, label: string, timeoutMs = 20 * 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sample = await pipelineSample(ctx);
    if (sample.backlog === 0 && sample.pending === 0) return true;
    if (Date.now() > deadline) return false;
    process.stderr.write(
      `[bench] ${label}: waiting for earlier work to drain (${sample.backlog} starts, ${sample.pending} confirmations: ${sample.queued} queued for a batch, ${sample.claimed} in batches)\n`,
    );
    await sleep(10_000);
  }
}
