import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry';

/** What the API counts itself: provider webhooks by category with their latency, and how postings group. */
export function createIngestMetrics(registry: Registry) {
  const webhooks = new Counter({
    name: `${METRIC_PREFIX}provider_webhooks_total`,
    help: 'Provider webhooks answered, by category (payment, duplicate, misdirected, processing_error, sig_invalid, non_payment_event; failed when the answer was a 5xx)',
    labelNames: ['category'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: `${METRIC_PREFIX}provider_webhook_ingest_seconds`,
    help: 'Time from receiving a provider webhook to answering it, by category',
    labelNames: ['category'],
    buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const groupSize = new Histogram({
    name: `${METRIC_PREFIX}payment_posting_group_size`,
    help: 'Payment webhooks to one account posted together in one statement (1 when alone)',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  });
  return {
    webhookAnswered(category: string, seconds: number): void {
      webhooks.inc({ category });
      latency.observe({ category }, seconds);
    },
    postingGroup(size: number): void {
      groupSize.observe(size);
    },
  };
}

export type IngestMetrics = ReturnType<typeof createIngestMetrics>;
