import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config';

/**
 * How far V8 lets the worker's old generation grow past what the last full collection kept before it
 * collects again: WORKER_HEAP_GROWING_PERCENT (50: to 1.5 times). Left to itself on a machine with
 * plenty of memory, V8 lets it grow to several times that (up to 4): garbage held as resident memory.
 * In the reconciliation benchmark a worker keeping about 50 MB grew its old generation to 130 MB and
 * more on a 100,000-transaction run. The flag is process-wide and read at every collection, so setting
 * it before the Worker starts covers the workflow thread too. 0 keeps V8's own heuristics.
 */
export function limitHeapGrowth(config: Pick<Config, 'WORKER_HEAP_GROWING_PERCENT'>): void {
  if (config.WORKER_HEAP_GROWING_PERCENT > 0) setFlagsFromString(`--heap-growing-percent=${config.WORKER_HEAP_GROWING_PERCENT}`);
}
