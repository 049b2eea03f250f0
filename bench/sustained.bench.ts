import { performance } from 'node:perf_hooks';
import { buckets, quantileBetween, total } from '../test/helpers/prometheus';
import { call } from '../test/helpers/http';
import { provisionAccounts, sleep, type BenchContext } from './context';
import { cpuByRole, cpuSecondsBetween } from './cpu';
import { quantile, sendAtRate, type SignedEvent } from './paced-sender';
import { ensureWorker, pipelineSample, waitForDrainedPipeline } from './pipeline';
import { fixed, writeResult, type Row } from './report';
import { bigStatementAccount } from './statement-account';
import { probeStatement } from './statement-probe';

const ACCOUNTS = 100;
const SAMPLE_EVERY_MS = 5_000;
/** A confirmation shows in the lag histogram after the API's settle margin (5 s) and metrics cache (5 s). */
const TAIL_MS = 12_000;
const LAG_P99_TARGET_S = 10;
/** Flat: the backlog grows by less than this share of the arrivals (per second) over the second half of a step. */
const FLAT_SLOPE_SHARE = 0.01;

interface Step {
  rate: number;
  seconds: number;
  sent: number;
  failed: number;
  behind: number;
  webhookP99Ms: number;
  confirmed: number;
  lagP50S: number;
  lagP99S: number;
  backlogStart: number;
  backlogEnd: number;
  /** Least-squares slope of the backlog over the step's second half, per second. */
  backlogSlope: number;
  oldestPendingEndS: number;
  /** The batch pipeline at the end of the step: credits waiting for a batch, credits batches hold. */
  queuedEnd: number;
  claimedEnd: number;
  /** Least-squares slope of the credits waiting for a batch over the step's second half, per second. */
  queuedSlope: number;
  /** The oldest credit waiting for a batch, at its worst over the step (the batcher's lag). */
  oldestQueuedMaxS: number;
  cpuMsPerConfirmation: Record<string, number>;
  statementP99Ms: number | null;
  flat: boolean;
}

function slope(points: Array<{ t: number; y: number }>): number {
  if (points.length < 2) return 0;
  const meanT = points.reduce((sum, point) => sum + point.t, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  const covariance = points.reduce((sum, point) => sum + (point.t - meanT) * (point.y - meanY), 0);
  const variance = points.reduce((sum, point) => sum + (point.t - meanT) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
}

/** Signed payment events made by the sandbox beforehand (so the provider knows each and confirms it). */
async function prepareEvents(ctx: BenchContext, accountRefs: string[], count: number): Promise<SignedEvent[]> {
  const events: SignedEvent[] = [];
  for (let made = 0; made < count; made += 10_000) {
    const batch = await call(ctx.sys.sandboxUrl, 'POST', '/sandbox/payments/batch', {
      body: { accountRefs, count: Math.min(10_000, count - made), amount: 1010 },
    });
    events.push(...(batch.body.events as SignedEvent[]));
  }
  return events;
}

/** One rate for `seconds`: paced webhooks, the pipeline sampled from /metrics, CPU, and a statement probe. */
async function runStep(
  ctx: BenchContext,
  events: SignedEvent[],
  rate: number,
  seconds: number,
  statementRef: string | null,
): Promise<Step> {
  const first = await pipelineSample(ctx);
  const cpuBefore = cpuByRole();
  const samples = [first];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await sleep(SAMPLE_EVERY_MS);
      if (sampling) samples.push(await pipelineSample(ctx));
    }
  })();
  const probe = statementRef ? probeStatement(ctx, statementRef, seconds * 1000) : Promise.resolve(null);
  const sent = await sendAtRate(ctx.sys.apiUrl, events, rate, seconds);
  sampling = false;
  await sampler;
  const statementLatencies = await probe;
  const atEnd = await pipelineSample(ctx);
  const cpuUsed = cpuSecondsBetween(cpuBefore, cpuByRole());
  await sleep(TAIL_MS);
  const last = await pipelineSample(ctx);
  const lagBefore = buckets(first.samples, 'nuban_confirmation_lag_seconds');
  const lagAfter = buckets(last.samples, 'nuban_confirmation_lag_seconds');
  const confirmed =
    total(last.samples, 'nuban_confirmation_lag_seconds_count') - total(first.samples, 'nuban_confirmation_lag_seconds_count');
  const confirmedDuringStep = Math.max(
    1,
    total(atEnd.samples, 'nuban_confirmation_lag_seconds_count') - total(first.samples, 'nuban_confirmation_lag_seconds_count'),
  );
  const inSecondHalf = samples.filter((sample) => sample.at - first.at >= (seconds * 1000) / 2);
  const secondHalf = inSecondHalf.map((sample) => ({ t: (sample.at - first.at) / 1000, y: sample.backlog + sample.pending }));
  const step: Step = {
    rate,
    seconds,
    sent: sent.sent,
    failed: sent.failed,
    behind: sent.behind,
    webhookP99Ms: quantile(sent.latenciesMs, 0.99),
    confirmed,
    lagP50S: quantileBetween(lagBefore, lagAfter, 0.5),
    lagP99S: quantileBetween(lagBefore, lagAfter, 0.99),
    backlogStart: first.backlog + first.pending,
    backlogEnd: atEnd.backlog + atEnd.pending,
    backlogSlope: slope(secondHalf),
    oldestPendingEndS: atEnd.oldestPendingS,
    queuedEnd: atEnd.queued,
    claimedEnd: atEnd.claimed,
    queuedSlope: slope(inSecondHalf.map((sample) => ({ t: (sample.at - first.at) / 1000, y: sample.queued }))),
    oldestQueuedMaxS: Math.max(...[...samples, atEnd].map((sample) => sample.oldestQueuedS)),
    cpuMsPerConfirmation: Object.fromEntries(
      Object.entries(cpuUsed).map(([role, cpuSeconds]) => [role, (cpuSeconds * 1000) / confirmedDuringStep]),
    ),
    statementP99Ms: statementLatencies ? quantile(statementLatencies, 0.99) : null,
    flat: false,
  };
  step.flat =
    sent.failed === 0 &&
    sent.behind === 0 &&
    step.backlogSlope <= Math.max(0.5, rate * FLAT_SLOPE_SHARE) &&
    step.lagP99S <= LAG_P99_TARGET_S;
  process.stderr.write(
    `[bench] sustained ${rate}/s for ${seconds} s: lag p50 ${fixed(step.lagP50S)} s p99 ${fixed(step.lagP99S)} s, backlog ${step.backlogStart} -> ${step.backlogEnd} (slope ${fixed(step.backlogSlope, 2)}/s; ` +
      `${step.queuedEnd} queued for a batch, ${step.claimedEnd} in batches, oldest queued at worst ${fixed(step.oldestQueuedMaxS)} s), ${step.flat ? 'flat' : 'NOT flat'}\n`,
  );
  return step;
}

function cpuText(cpuMs: Record<string, number>): string {
  const parts = Object.entries(cpuMs)
    .filter(([role, ms]) => ms >= 0.05 && role !== 'load generator')
    .sort(([, a], [, b]) => b - a);
  const all = parts.reduce((sum, [, ms]) => sum + ms, 0);
  return `${fixed(all)} (${parts.map(([role, ms]) => `${role} ${fixed(ms)}`).join(', ')})`;
}

function stepRows(label: string, step: Step): Row[] {
  const cpuAll = Object.entries(step.cpuMsPerConfirmation)
    .filter(([role]) => role !== 'load generator')
    .reduce((sum, [, ms]) => sum + ms, 0);
  return [
    {
      benchmark: 'sustained',
      measure: `${label}: confirmation lag p50 / p99, s (from /metrics)`,
      value: `${fixed(step.lagP50S)} / ${fixed(step.lagP99S)}`,
      target: 'p99 <= 10 s',
      meets: step.lagP99S <= LAG_P99_TARGET_S,
    },
    {
      benchmark: 'sustained',
      measure: `${label}: backlog (outbox + pending confirmations) start -> end, slope over 2nd half /s`,
      value: `${step.backlogStart} -> ${step.backlogEnd}, ${fixed(step.backlogSlope, 2)}/s`,
      target: 'flat',
      meets: step.backlogSlope <= Math.max(0.5, step.rate * FLAT_SLOPE_SHARE),
    },
    {
      benchmark: 'sustained',
      measure: `${label}: oldest pending confirmation at the end, s`,
      value: fixed(step.oldestPendingEndS, 0),
      target: '-',
      meets: null,
    },
    {
      benchmark: 'sustained',
      measure: `${label}: batch pipeline at the end: queued for a batch / held by batches; queued slope over 2nd half /s; oldest queued at worst, s`,
      value: `${step.queuedEnd} / ${step.claimedEnd}; ${fixed(step.queuedSlope, 2)}/s; ${fixed(step.oldestQueuedMaxS)}`,
      target: '-',
      meets: null,
    },
    {
      benchmark: 'sustained',
      measure: `${label}: webhooks sent / failed / not sent on time, webhook p99 ms`,
      value: `${step.sent} / ${step.failed} / ${step.behind}, ${fixed(step.webhookP99Ms)}`,
      target: '- / 0 / 0',
      meets: step.failed === 0 && step.behind === 0,
    },
    {
      benchmark: 'sustained',
      measure: `${label}: CPU ms per confirmed payment, all processes (by process)`,
      value: cpuText(step.cpuMsPerConfirmation),
      target: '<= 8',
      meets: cpuAll <= 8,
    },
  ];
}

/**
 * Payments arriving at a fixed rate for minutes (not a burst), across 100 accounts: the confirmation lag
 * and the backlog are read from the API's /metrics through the run. `--search` steps the rate up (×1.5
 * from `--rate`, `--step-minutes` each) until a step is no longer flat, and reports the highest flat rate.
 */
export async function sustainedBenchmark(ctx: BenchContext): Promise<Row[]> {
  const { options } = ctx;
  await ensureWorker(ctx);
  await waitForDrainedPipeline(ctx, 'sustained');
  const accounts = await provisionAccounts(ctx, ACCOUNTS);
  const statementRef = options.entries > 0 ? (await bigStatementAccount(ctx)).AccountRef : null;
  const started = performance.now();
  const steps: Step[] = [];
  if (options.search) {
    for (let rate = options.rate > 0 ? options.rate : 25, tries = 0; tries < 10; rate = Math.round(rate * 1.5), tries += 1) {
      const seconds = options.stepMinutes * 60;
      const events = await prepareEvents(
        ctx,
        accounts.map((account) => account.AccountRef),
        Math.ceil(rate * seconds),
      );
      const step = await runStep(ctx, events, rate, seconds, statementRef);
      steps.push(step);
      if (!step.flat) break;
    }
  } else {
    const seconds = options.minutes * 60;
    const events = await prepareEvents(
      ctx,
      accounts.map((account) => account.AccountRef),
      Math.ceil(options.rate * seconds),
    );
    steps.push(await runStep(ctx, events, options.rate, seconds, statementRef));
  }
  writeResult('sustained', { options, steps, totalS: (performance.now() - started) / 1000 });
  const flatRates = steps.filter((step) => step.flat).map((step) => step.rate);
  const best = flatRates.length > 0 ? Math.max(...flatRates) : null;
  const shown = steps.find((step) => step.rate === best) ?? steps.at(-1)!;
  const minutes = fixed(shown.seconds / 60, shown.seconds % 60 === 0 ? 0 : 1);
  const rows: Row[] = [
    {
      benchmark: 'sustained',
      measure: `payments/s with lag p99 <= 10 s and a flat backlog for ${minutes} min${options.search ? ` (search: ${steps.map((step) => `${step.rate}${step.flat ? '' : '✗'}`).join(', ')})` : ''}`,
      value: best === null ? `not flat at ${steps.map((step) => step.rate).join(', ')}/s` : String(best),
      target: '>= 150',
      meets: best !== null && best >= 150,
    },
    ...stepRows(`at ${shown.rate}/s`, shown),
  ];
  if (shown.statementP99Ms !== null) {
    rows.push({
      benchmark: 'sustained',
      measure: `statement page p99 at ${options.entries.toLocaleString('en')} entries while it confirms, ms`,
      value: fixed(shown.statementP99Ms, 2),
      target: '<= 20 ms',
      meets: shown.statementP99Ms <= 20,
    });
  }
  return rows;
}
