import { performance } from 'node:perf_hooks';
import { call } from '../test/helpers/http';
import { sleep, type BenchContext } from './context';

/**
 * The first statement page of `accountRef`, one request at a time with a short pause, for `durationMs`
 * while other work runs: each request's latency in ms (a page is a property of one request, not of a queue).
 */
export async function probeStatement(ctx: BenchContext, accountRef: string, durationMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + durationMs;
  while (performance.now() < until) {
    const started = performance.now();
    const response = await call(ctx.sys.apiUrl, 'GET', `/v1/accounts/${accountRef}/statement`, { apiKey: ctx.apiKey });
    if (response.status === 200) latencies.push(performance.now() - started);
    await sleep(50);
  }
  return latencies;
}
