import { collectDefaultMetrics, type Registry } from 'prom-client';

/** Every metric of this service starts with it, so one selector finds them all. */
export const METRIC_PREFIX = 'nuban_';

/**
 * Node's process metrics (CPU, memory, event loop lag, GC) in a long-lived process's registry. Only the
 * entrypoints call it: it installs observers for the life of the process.
 */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
}
