import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry';

/** Statuses after which the provider may well answer the same call later (as the client treats them). */
const isFailure = (status: number | null): boolean => status === null || status >= 500 || status === 408 || status === 429;

function outcomeOf(status: number | null): string {
  return status === null ? 'unreachable' : `${Math.floor(status / 100)}xx`;
}

/** Every call to the provider: latency by endpoint and outcome, and the calls that failed. */
export function createProviderMetrics(registry: Registry) {
  const latency = new Histogram({
    name: `${METRIC_PREFIX}provider_request_seconds`,
    help: 'Provider API calls by endpoint (the client operation) and outcome (2xx, 4xx, 5xx, unreachable)',
    labelNames: ['endpoint', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: `${METRIC_PREFIX}provider_request_errors_total`,
    help: 'Provider API calls that failed (unreachable, timed out, 5xx, 408 or 429), by endpoint and reason',
    labelNames: ['endpoint', 'reason'],
    registers: [registry],
  });
  return {
    /** One finished call: its HTTP status, or null when no answer came (network error, timeout). */
    observe(endpoint: string, status: number | null, seconds: number): void {
      latency.observe({ endpoint, outcome: outcomeOf(status) }, seconds);
      if (isFailure(status)) errors.inc({ endpoint, reason: status === null ? 'unreachable' : `http_${status}` });
    },
  };
}

export type ProviderMetrics = ReturnType<typeof createProviderMetrics>;
