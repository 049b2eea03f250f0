import { scrape, total, type Sample } from '../test/helpers/prometheus';
import { sleep, type BenchContext } from './context';

/** The pipeline as the API's /metrics shows it: what the benchmarks read their lag and backlog from. */
export async function pipelineSample(ctx: BenchContext): Promise<{ at: number; samples: Sample[]; backlog: number; pending: number; oldestPendingS: number }> {
  const samples = await scrape(ctx.sys.metricsUrl);
  return {
    at: Date.now(),
    samples,
    // Starts waiting in the outbox plus credits waiting for their confirmation: work taken in, not yet done.
    backlog: total(samples, 'nuban_outbox_backlog'),
    pending: total(samples, 'nuban_confirmations_pending'),
    oldestPendingS: total(samples, 'nuban_confirmations_oldest_pending_age_seconds'),
  };
}

/** Restarts the worker if an earlier benchmark stopped it. */
export async function ensureWorker(ctx: BenchContext): Promise<void> {
  const pid = ctx.sys.pid('worker');
  const alive = pid !== undefined && (() => {
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
    process.stderr.write(`[bench] ${label}: waiting for earlier work to drain (${sample.backlog} starts, ${sample.pending} confirmations)\n`);
    await sleep(10_000);
  }
}
