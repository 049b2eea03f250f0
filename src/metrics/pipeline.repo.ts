import type { Db } from '../db';

export interface OutboxBacklog {
  workflowType: string;
  count: number;
  oldestAgeSeconds: number;
}

interface StatusChanges {
  /** Seconds from posting to confirmation, one per payment credit confirmed in the window. */
  confirmationLagsSeconds: number[];
  paymentsReversed: number;
  deliveriesFinished: Record<'succeeded' | 'dead_letter', number>;
  settlementsFinished: Record<'success' | 'failed' | 'refunded', number>;
}

/**
 * The ledger's figures, read by the ledger (src/ledger/ledger-reads.ts): metrics sit below the ledger, so
 * src/main/ hands them in.
 */
export interface LedgerPipelineReads {
  pendingConfirmations(): Promise<{ count: number; oldestAgeSeconds: number }>;
  heldMoney(): Promise<{ credits: number; naira: number; oldestAgeSeconds: number }>;
  paymentChangesBetween(from: Date, until: Date): Promise<Pick<StatusChanges, 'confirmationLagsSeconds' | 'paymentsReversed'>>;
}

/** Rows change inside transactions that commit a moment later: a window ends this far in the past. */
export const SETTLE_MARGIN_SECONDS = 5;

/**
 * The pipeline as Postgres holds it, for the API's /metrics. Every query reads one of the partial or
 * time indexes made for it (migration 20261123000500), so its cost follows the backlog, not the history.
 */
export function createPipelineRepo(db: Db, ledger: LedgerPipelineReads) {
  return {
    async outboxBacklog(): Promise<OutboxBacklog[]> {
      const { rows } = await db.raw(
        `SELECT workflow_type, count(*) AS count, extract(epoch FROM now() - min(created_at)) AS oldest
           FROM workflow_outbox WHERE started_at IS NULL GROUP BY workflow_type`,
      );
      return (rows as Array<{ workflow_type: string; count: string; oldest: string }>).map((row) => ({
        workflowType: row.workflow_type,
        count: Number(row.count),
        oldestAgeSeconds: Number(row.oldest),
      }));
    },

    pendingConfirmations: ledger.pendingConfirmations,

    /** Money held over KYC limits, across tenants (the open holds' partial index). */
    heldMoney: ledger.heldMoney,

    /** Credits queued for a batch confirmation and credits a batch holds (confirmation_claims holds only unsettled ones). */
    async confirmationClaims(): Promise<{ queued: number; claimed: number; oldestQueuedAgeSeconds: number }> {
      const { rows } = await db.raw(
        `SELECT count(*) FILTER (WHERE batch_id IS NULL) AS queued, count(*) FILTER (WHERE batch_id IS NOT NULL) AS claimed,
                coalesce(extract(epoch FROM now() - min(queued_at) FILTER (WHERE batch_id IS NULL)), 0) AS oldest
           FROM confirmation_claims`,
      );
      const row = rows[0] as { queued: string; claimed: string; oldest: string };
      return { queued: Number(row.queued), claimed: Number(row.claimed), oldestQueuedAgeSeconds: Number(row.oldest) };
    },

    async openDeliveries(): Promise<Record<'pending' | 'retrying' | 'dead_letter', number>> {
      const { rows } = await db.raw(
        `SELECT status, count(*) AS count FROM webhook_deliveries WHERE status IN ('pending', 'retrying', 'dead_letter') GROUP BY status`,
      );
      const counts = { pending: 0, retrying: 0, dead_letter: 0 };
      for (const row of rows as Array<{ status: keyof typeof counts; count: string }>) counts[row.status] = Number(row.count);
      return counts;
    },

    /**
     * Open settlements by status, and the age of the oldest (a payout whose reference stays ambiguous stays open for as long as it takes).
     */
    async openSettlements(): Promise<{ pending: number; processing: number; oldestAgeSeconds: number }> {
      const { rows } = await db.raw(
        `SELECT status, count(*) AS count, extract(epoch FROM now() - min(created_at)) AS oldest
           FROM settlements WHERE status IN ('pending', 'processing') GROUP BY status`,
      );
      const open = { pending: 0, processing: 0, oldestAgeSeconds: 0 };
      for (const row of rows as Array<{ status: 'pending' | 'processing'; count: string; oldest: string }>) {
        open[row.status] = Number(row.count);
        open.oldestAgeSeconds = Math.max(open.oldestAgeSeconds, Number(row.oldest));
      }
      return open;
    },

    /** Open reconciliation findings at alert level (a run's or the settlement watch's), by kind. */
    async openAlertFindings(): Promise<Array<{ kind: string; count: number }>> {
      const { rows } = await db.raw(
        `SELECT kind, count(*) AS count FROM reconciliation_exceptions WHERE status = 'open' AND severity = 'alert' GROUP BY kind`,
      );
      return (rows as Array<{ kind: string; count: string }>).map((row) => ({ kind: row.kind, count: Number(row.count) }));
    },

    /** The database's clock, less the settle margin: where the next window of changes ends. */
    async windowEnd(): Promise<Date> {
      const { rows } = await db.raw(`SELECT now() - make_interval(secs => ?) AS until`, [SETTLE_MARGIN_SECONDS]);
      return (rows[0] as { until: Date }).until;
    },

    /** What finished in (from, until]: confirmations with their lag, reversals, deliveries and settlements. */
    async changesBetween(from: Date, until: Date): Promise<StatusChanges> {
      const [entries, deliveries, settlements] = await Promise.all([
        ledger.paymentChangesBetween(from, until),
        db.raw(
          `SELECT status, count(*) AS count FROM webhook_deliveries
            WHERE updated_at > ? AND updated_at <= ? AND status IN ('succeeded', 'dead_letter') GROUP BY status`,
          [from, until],
        ),
        db.raw(
          `SELECT status, count(*) AS count FROM settlements
            WHERE updated_at > ? AND updated_at <= ? AND status IN ('success', 'failed', 'refunded') GROUP BY status`,
          [from, until],
        ),
      ]);
      const deliveriesFinished = { succeeded: 0, dead_letter: 0 };
      for (const row of deliveries.rows as Array<{ status: keyof typeof deliveriesFinished; count: string }>)
        deliveriesFinished[row.status] = Number(row.count);
      const settlementsFinished = { success: 0, failed: 0, refunded: 0 };
      for (const row of settlements.rows as Array<{ status: keyof typeof settlementsFinished; count: string }>)
        settlementsFinished[row.status] = Number(row.count);
      return { ...entries, deliveriesFinished, settlementsFinished };
    },
  };
}

export type PipelineRepo = ReturnType<typeof createPipelineRepo>;
