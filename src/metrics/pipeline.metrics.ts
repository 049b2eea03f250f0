import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../logger';
import type { OutboxBacklog, PipelineRepo } from './pipeline.repo';
import { METRIC_PREFIX } from './registry';

/** After a long pause between scrapes, changes older than this are not counted (one bounded catch-up read). */
const MAX_CATCH_UP_MS = 5 * 60_000;

interface Snapshot {
  backlog: OutboxBacklog[];
  pending: { count: number; oldestAgeSeconds: number };
  claims: { queued: number; claimed: number; oldestQueuedAgeSeconds: number };
  deliveries: Record<'pending' | 'retrying' | 'dead_letter', number>;
  settlements: { pending: number; processing: number; oldestAgeSeconds: number };
  openAlerts: Array<{ kind: string; count: number }>;
  held: { credits: number; naira: number; oldestAgeSeconds: number };
}

/**
 * The work other processes do, read from Postgres when Prometheus scrapes: the outbox backlog, pending
 * confirmations and the confirmation lag, deliveries and settlements. One read serves every scrape for
 * `cacheMs` (concurrent scrapes share it), so scraping never hammers the database. Counters and the lag
 * histogram grow from the rows that changed since the previous read (each change counted once by this
 * process; the first read counts from the process's start, at most 5 minutes back), so Prometheus'
 * rate() and histogram_quantile() work on them as on any counter.
 */
export function createPipelineMetrics(deps: { repo: PipelineRepo; registry: Registry; cacheMs: number; logger: Logger }) {
  const { repo, registry, cacheMs, logger } = deps;
  let snapshot: Snapshot = {
    backlog: [],
    pending: { count: 0, oldestAgeSeconds: 0 },
    held: { credits: 0, naira: 0, oldestAgeSeconds: 0 },
    claims: { queued: 0, claimed: 0, oldestQueuedAgeSeconds: 0 },
    deliveries: { pending: 0, retrying: 0, dead_letter: 0 },
    settlements: { pending: 0, processing: 0, oldestAgeSeconds: 0 },
    openAlerts: [],
  };
  let readAt = 0;
  let reading: Promise<void> | null = null;
  let watermark: Date | null = null;
  const startedAtMs = Date.now();
  const workflowTypesSeen = new Set<string>();
  const alertKindsSeen = new Set<string>();
  // Counters and the lag histogram grow when the snapshot is read: each reads it (if stale) before it is serialised.
  const refresh = async (): Promise<void> => {
    await current();
  };

  const up = new Gauge({
    name: `${METRIC_PREFIX}pipeline_metrics_up`,
    help: '1 when the last read of the pipeline from Postgres succeeded, 0 when the figures below are stale',
    registers: [registry],
    collect: refresh,
  });
  const lag = new Histogram({
    name: `${METRIC_PREFIX}confirmation_lag_seconds`,
    help: 'Payment credits confirmed: seconds from posting (the webhook) to confirmation',
    buckets: [0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [registry],
    collect: refresh,
  });
  const reversed = new Counter({
    name: `${METRIC_PREFIX}payment_credits_reversed_total`,
    help: 'Payment credits reversed (the provider did not confirm them)',
    registers: [registry],
    collect: refresh,
  });
  const deliveriesFinished = new Counter({
    name: `${METRIC_PREFIX}webhook_deliveries_total`,
    help: 'Outbound webhook deliveries finished, by outcome (succeeded, dead_letter)',
    labelNames: ['outcome'],
    registers: [registry],
    collect: refresh,
  });
  const settlementsFinished = new Counter({
    name: `${METRIC_PREFIX}settlements_finished_total`,
    help: 'Settlements reaching a final status (success, failed, refunded)',
    labelNames: ['status'],
    registers: [registry],
    collect: refresh,
  });

  async function read(): Promise<void> {
    try {
      const until = await repo.windowEnd();
      const [backlog, pending, claims, deliveries, settlements, openAlerts, held] = await Promise.all([
        repo.outboxBacklog(),
        repo.pendingConfirmations(),
        repo.confirmationClaims(),
        repo.openDeliveries(),
        repo.openSettlements(),
        repo.openAlertFindings(),
        repo.heldMoney(),
      ]);
      // The first read counts what changed since this process started (by its own uptime, so clocks never compare).
      const since = watermark?.getTime() ?? until.getTime() - (Date.now() - startedAtMs);
      if (until.getTime() > since) {
        const from = new Date(Math.max(since, until.getTime() - MAX_CATCH_UP_MS));
        const changes = await repo.changesBetween(from, until);
        for (const seconds of changes.confirmationLagsSeconds) lag.observe(seconds);
        reversed.inc(changes.paymentsReversed);
        for (const [outcome, count] of Object.entries(changes.deliveriesFinished)) deliveriesFinished.inc({ outcome }, count);
        for (const [status, count] of Object.entries(changes.settlementsFinished)) settlementsFinished.inc({ status }, count);
      }
      watermark = until > (watermark ?? new Date(0)) ? until : watermark;
      snapshot = { backlog, pending, claims, deliveries, settlements, openAlerts, held };
      up.set(1);
    } catch (error) {
      logger.warn({ err: error }, 'pipeline metrics: could not read Postgres; serving the last figures');
      up.set(0);
    }
  }

  /** The snapshot, read again when older than cacheMs; one read at a time. */
  async function current(): Promise<Snapshot> {
    if (Date.now() - readAt >= cacheMs) {
      reading ??= read().finally(() => {
        readAt = Date.now();
        reading = null;
      });
    }
    if (reading) await reading;
    return snapshot;
  }

  const gauge = (name: string, help: string, labelNames: string[], fill: (metric: Gauge, s: Snapshot) => void): Gauge => {
    const metric: Gauge = new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      collect: async () => fill(metric, await current()),
    });
    return metric;
  };

  gauge('outbox_backlog', 'Workflow starts committed but not yet started, by workflow type', ['workflow_type'], (metric, s) => {
    for (const type of workflowTypesSeen) metric.set({ workflow_type: type }, 0);
    for (const row of s.backlog) {
      workflowTypesSeen.add(row.workflowType);
      metric.set({ workflow_type: row.workflowType }, row.count);
    }
  });
  gauge(
    'outbox_oldest_unstarted_age_seconds',
    'Age of the oldest workflow start still waiting in the outbox, by workflow type (0 when none waits)',
    ['workflow_type'],
    (metric, s) => {
      for (const type of workflowTypesSeen) metric.set({ workflow_type: type }, 0);
      for (const row of s.backlog) metric.set({ workflow_type: row.workflowType }, row.oldestAgeSeconds);
    },
  );
  gauge('confirmations_pending', 'Payment credits still provisional (waiting for the provider to confirm them)', [], (metric, s) =>
    metric.set(s.pending.count),
  );
  gauge('confirmations_oldest_pending_age_seconds', 'Age of the oldest provisional payment credit (0 when none)', [], (metric, s) =>
    metric.set(s.pending.oldestAgeSeconds),
  );
  gauge(
    'confirmation_claims',
    'Provisional credits in the batch confirmation queue, by state (queued: waiting for a batch; claimed: held by an open batch)',
    ['state'],
    (metric, s) => {
      metric.set({ state: 'queued' }, s.claims.queued);
      metric.set({ state: 'claimed' }, s.claims.claimed);
    },
  );
  gauge(
    'confirmation_queue_oldest_age_seconds',
    'Age of the oldest credit queued for a batch confirmation (0 when none waits)',
    [],
    (metric, s) => metric.set(s.claims.oldestQueuedAgeSeconds),
  );
  gauge(
    'webhook_deliveries_open',
    'Outbound webhook deliveries not yet delivered, by status (pending, retrying)',
    ['status'],
    (metric, s) => {
      metric.set({ status: 'pending' }, s.deliveries.pending);
      metric.set({ status: 'retrying' }, s.deliveries.retrying);
    },
  );
  gauge('webhook_dead_letters', 'Outbound webhook deliveries in the dead-letter list', [], (metric, s) =>
    metric.set(s.deliveries.dead_letter),
  );
  gauge('settlements_open', 'Settlements not yet final, by status (pending, processing)', ['status'], (metric, s) => {
    metric.set({ status: 'pending' }, s.settlements.pending);
    metric.set({ status: 'processing' }, s.settlements.processing);
  });
  gauge(
    'settlements_oldest_open_age_seconds',
    'Age of the oldest settlement not yet final (0 when none): a payout the provider leaves ambiguous stays open, never failed',
    [],
    (metric, s) => metric.set(s.settlements.oldestAgeSeconds),
  );
  gauge(
    'held_money_naira',
    "Money held over customers' KYC limits (in ledger balances, not spendable until released), in naira",
    [],
    (metric, s) => metric.set(s.held.naira),
  );
  gauge('held_credits', 'Payment credits with a part still held over KYC limits', [], (metric, s) => metric.set(s.held.credits));
  gauge('held_oldest_age_seconds', 'Age of the oldest credit still held over KYC limits (0 when none)', [], (metric, s) =>
    metric.set(s.held.oldestAgeSeconds),
  );
  gauge(
    'reconciliation_open_alerts',
    "Open reconciliation findings at alert level, by kind (a run's or the settlement watch's; a kind once seen stays at 0 when none is open)",
    ['kind'],
    (metric, s) => {
      for (const kind of alertKindsSeen) metric.set({ kind }, 0);
      for (const row of s.openAlerts) {
        alertKindsSeen.add(row.kind);
        metric.set({ kind: row.kind }, row.count);
      }
    },
  );

  return { refresh };
}
