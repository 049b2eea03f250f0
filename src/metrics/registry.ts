import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every metric of this service starts with it, so one selector finds them all. */
export const METRIC_PREFIX = 'nuban_';

/** A registry of this process's own metrics, with Node's process metrics (CPU, memory, event loop, GC). */
export function createProcessRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
