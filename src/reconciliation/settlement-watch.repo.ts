import type { DbOrTrx } from '../db';
import type { AttemptOutcome, SettlementStatus } from '../settlements/settlements.access';

/** A settlement reference the ledger says can no longer pay, due for a lookup at the provider. */
export interface WatchedReference {
  settlementId: string;
  attemptNo: number;
  providerRef: string;
}

/** What the ledger says of a watched reference's settlement now, read when the provider says SUCCESS. */
export interface WatchedSettlement {
  settlementId: string;
  tenantId: string;
  accountId: string;
  merchantTxRef: string;
  status: SettlementStatus;
  amount: bigint;
  attemptOutcome: AttemptOutcome;
  /** The reference the settlement was paid by, when it is paid. */
  settledReference: string | null;
}

/** A reference checked once more waits this long, doubling with each check up to the configured most. */
const FIRST_RECHECK_SECONDS = 60;

export function createSettlementWatchRepo(db: DbOrTrx) {
  return {
    /**
     * References failed or refunded within `watchMs`, and every reference of a settlement failed or
     * refunded within `watchMs`, whose next check is due (never checked first, then the longest due).
     * Both halves read only the rows inside the window, through partial indexes.
     */
    async due(watchMs: number, limit: number): Promise<WatchedReference[]> {
      const result = await db.raw(
        `WITH watched AS (
           SELECT sa.settlement_id, sa.attempt_no FROM settlement_attempts sa
            WHERE sa.outcome IN ('failed', 'refunded') AND sa.updated_at > now() - make_interval(secs => :watch)
           UNION
           SELECT sa.settlement_id, sa.attempt_no FROM settlements s JOIN settlement_attempts sa ON sa.settlement_id = s.id
            WHERE s.status IN ('failed', 'refunded') AND s.updated_at > now() - make_interval(secs => :watch)
         )
         SELECT sa.settlement_id, sa.attempt_no, sa.provider_ref
           FROM watched w JOIN settlement_attempts sa USING (settlement_id, attempt_no)
          WHERE sa.watch_next_at IS NULL OR sa.watch_next_at <= now()
          ORDER BY sa.watch_next_at NULLS FIRST, sa.provider_ref
          LIMIT :limit`,
        { watch: watchMs / 1000, limit },
      );
      return (result.rows as Array<{ settlement_id: string; attempt_no: number; provider_ref: string }>).map((row) => ({
        settlementId: row.settlement_id,
        attemptNo: row.attempt_no,
        providerRef: row.provider_ref,
      }));
    },

    /**
     * Schedules the reference's next check: after an answer, FIRST_RECHECK doubled per answer so far
     * (at most `maxIntervalMs`); after no answer (an outage), FIRST_RECHECK again, the count unchanged.
     * The attempt's updated_at is left alone: it dates the failure the watch counts from.
     */
    async scheduleNext(reference: WatchedReference, answered: boolean, maxIntervalMs: number): Promise<void> {
      const delay = answered
        ? `least(${FIRST_RECHECK_SECONDS} * power(2, least(watch_checks, 20)), :max)`
        : `least(${FIRST_RECHECK_SECONDS}, :max)`;
      await db('settlement_attempts')
        .where({ settlement_id: reference.settlementId, attempt_no: reference.attemptNo })
        .update({
          watch_next_at: db.raw(`now() + make_interval(secs => ${delay})`, { max: maxIntervalMs / 1000 }),
          watch_checks: db.raw(answered ? 'watch_checks + 1' : 'watch_checks'),
        });
    },

    async settlementOf(reference: WatchedReference): Promise<WatchedSettlement | undefined> {
      const row: Record<string, any> | undefined = await db('settlements as s')
        .join('settlement_attempts as sa', 'sa.settlement_id', 's.id')
        .leftJoin('settlement_attempts as paid', function () {
          this.on('paid.settlement_id', 's.id').andOnVal('paid.outcome', 'success');
        })
        .where({ 'sa.settlement_id': reference.settlementId, 'sa.attempt_no': reference.attemptNo })
        .first(
          's.id',
          's.tenant_id',
          's.account_id',
          's.merchant_tx_ref',
          's.status',
          's.amount',
          'sa.outcome',
          'paid.provider_ref as settled_reference',
        );
      if (!row) return undefined;
      return {
        settlementId: row.id,
        tenantId: row.tenant_id,
        accountId: row.account_id,
        merchantTxRef: row.merchant_tx_ref,
        status: row.status,
        amount: BigInt(row.amount),
        attemptOutcome: row.outcome,
        settledReference: row.settled_reference,
      };
    },
  };
}
