import type { Trx } from '../db';
import type { PaymentMemory } from '../contracts/confirmation-rules';

/** A credit's remembered answers, locked, with the database's clock: now, and when its window (from posting) ends. */
export interface LockedAnswers {
  memory: PaymentMemory;
  /** The database's clock in this transaction (epoch ms): a counted answer is stored at this time. */
  nowMs: number;
  windowEndsAtMs: number;
}

interface AnswersRow {
  first_seen_at: Date | null;
  claim_first_seen_at: Date | null;
  not_found_answers: number;
  last_not_found_counted_at: Date | null;
  now_ms: number;
  window_ends_at_ms: number;
}

/** The provider's answers to a per-payment confirmation's activities (see the confirmation_answers migration). */
export function createConfirmationAnswersRepo(trx: Trx) {
  return {
    /**
     * The credit's answers so far, its row locked (made if missing) until the caller's transaction ends,
     * so two activities answering at once count one after the other. A transaction its batch claim has
     * seen counts as seen too: a later "not found" is lookup lag, whoever asked.
     */
    async lock(entryId: string, windowMs: number): Promise<LockedAnswers> {
      await trx('confirmation_answers').insert({ entry_id: entryId }).onConflict('entry_id').ignore();
      const { rows } = (await trx.raw(
        `SELECT a.first_seen_at, c.first_seen_at AS claim_first_seen_at, a.not_found_answers, a.last_not_found_counted_at,
                CAST(extract(epoch FROM now()) * 1000 AS float8) AS now_ms,
                CAST(extract(epoch FROM e.created_at + make_interval(secs => ?)) * 1000 AS float8) AS window_ends_at_ms
           FROM confirmation_answers a
           JOIN ledger_entries e ON e.id = a.entry_id
           LEFT JOIN confirmation_claims c ON c.entry_id = a.entry_id
          WHERE a.entry_id = ?
            FOR UPDATE OF a`,
        [windowMs / 1000, entryId],
      )) as { rows: AnswersRow[] };
      const row = rows[0]!;
      return {
        memory: {
          seen: row.first_seen_at !== null || row.claim_first_seen_at !== null,
          notFoundAnswers: row.not_found_answers,
          lastNotFoundCountedAtMs: row.last_not_found_counted_at?.getTime() ?? null,
        },
        nowMs: row.now_ms,
        windowEndsAtMs: row.window_ends_at_ms,
      };
    },

    /** Stores the memory after one more answer (in the transaction that locked it); a counted "not found" at the transaction's time. */
    async save(entryId: string, memory: PaymentMemory, notFoundCounted: boolean): Promise<void> {
      await trx('confirmation_answers')
        .where({ entry_id: entryId })
        .update({
          lookups: trx.raw('lookups + 1'),
          first_seen_at: memory.seen ? trx.raw('coalesce(first_seen_at, now())') : null,
          not_found_answers: memory.notFoundAnswers,
          last_not_found_counted_at: notFoundCounted ? trx.fn.now() : trx.raw('last_not_found_counted_at'),
        });
    },

    /** Forgets a credit's answers once it is settled (in the transaction that settles it). */
    async drop(entryId: string): Promise<void> {
      await trx('confirmation_answers').where({ entry_id: entryId }).delete();
    },
  };
}
