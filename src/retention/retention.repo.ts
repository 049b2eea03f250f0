import type { DbOrTrx } from '../db';

/** The smallest UUIDv7 of a moment: ids are time-ordered, so `id < bound` is "created before" on the primary key. */
function uuidv7Floor(at: Date): string {
  const hex = BigInt(at.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * Batched deletes and clean-ups of rows nothing needs any more. Each call changes at most `batch`
 * rows in one short statement, so a large backlog never holds locks for long.
 */
export function createRetentionRepo(db: DbOrTrx) {
  async function count(sql: string, bindings: Record<string, unknown>): Promise<number> {
    const result = (await db.raw(sql, bindings)) as { rowCount: number | null };
    return result.rowCount ?? 0;
  }

  return {
    /**
     * Events that failed verification claim no request id: the whole row goes, with its body's digest key (a later
     * copy of the body is stored afresh). Only those: the record of a payment a reconciliation run found is unsigned
     * too, but it is the credit's inbound event. Bounded by created_at as well as id, so that only the months before
     * `before` are read.
     */
    async deleteUnverifiedEvents(before: Date, batch: number): Promise<number> {
      const { rows } = await db.raw(
        `WITH gone AS (
           DELETE FROM inbound_events e USING (
             SELECT id, created_at FROM inbound_events
              WHERE NOT signature_valid AND category = 'sig_invalid' AND id < :bound AND created_at < :before ORDER BY id LIMIT :batch) old
            WHERE e.id = old.id AND e.created_at = old.created_at
           RETURNING e.id, e.raw_sha256
         ), keys AS (
           DELETE FROM inbound_event_digest_keys k USING gone WHERE k.raw_sha256 = gone.raw_sha256 AND k.event_id = gone.id
         )
         SELECT count(*) AS deleted FROM gone`,
        { bound: uuidv7Floor(before), before, batch },
      );
      return Number(rows[0].deleted);
    },

    /**
     * Verified events keep their row (its request id's key is the claim that makes a provider retry a
     * duplicate) and lose only the raw payload. Payloads still in use stay: an unassigned misdirected
     * payment (an operator may still post it) and a processing error (listed to the tenant).
     */
    stripEventPayloads(before: Date, batch: number): Promise<number> {
      return count(
        `UPDATE inbound_events e SET payload = NULL, raw_body = NULL FROM (
           SELECT id, created_at FROM inbound_events
            WHERE signature_valid AND (payload IS NOT NULL OR raw_body IS NOT NULL) AND id < :bound AND created_at < :before
              AND (category IN ('payment', 'non_payment_event') OR (category = 'misdirected' AND assigned_at IS NOT NULL))
            ORDER BY id LIMIT :batch) old
          WHERE e.id = old.id AND e.created_at = old.created_at`,
        { bound: uuidv7Floor(before), before, batch },
      );
    },

    /** Outbox rows whose workflow was started long ago: the workflow id, not the row, keeps it unique. */
    deleteStartedJobs(before: Date, batch: number): Promise<number> {
      return count(
        `DELETE FROM workflow_outbox WHERE workflow_id IN (
           SELECT workflow_id FROM workflow_outbox WHERE started_at IS NOT NULL AND created_at < :before ORDER BY created_at LIMIT :batch)`,
        { before, batch },
      );
    },

    /**
     * Balance sweep runs that moved nothing (nothing to move, paused, refused): a threshold sweep records
     * one per check, and nothing refers to them. A settled run stays, as the settlement it names does.
     */
    deleteUnsettledBalanceSweepRuns(before: Date, batch: number): Promise<number> {
      return count(
        `DELETE FROM balance_sweep_runs WHERE id IN (
           SELECT id FROM balance_sweep_runs WHERE outcome <> 'settled' AND id < :bound ORDER BY id LIMIT :batch)`,
        { bound: uuidv7Floor(before), batch },
      );
    },

    /** Dashboard sessions that expired or were revoked long ago. */
    deleteEndedSessions(before: Date, batch: number): Promise<number> {
      return count(
        `DELETE FROM sessions WHERE id IN (
           SELECT id FROM sessions WHERE expires_at < :before OR revoked_at < :before LIMIT :batch)`,
        { before, batch },
      );
    },
  };
}
