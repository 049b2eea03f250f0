import type { Knex } from 'knex';
import type { DbOrTrx } from '../db';
import { createSettlementsRepo, type AttemptOutcome, type SettlementRecord, type SettlementStatus } from './settlements.repo';

/** What other domains may read of a settlement: they reach settlements only through these. */
export type { AttemptOutcome, SettlementRecord, SettlementStatus };

export const findSettlementById = (db: DbOrTrx, id: string): Promise<SettlementRecord | undefined> =>
  createSettlementsRepo(db).findById(id);

/** A settlement's outcome as another domain follows it: its status and, once failed, why. */
export interface SettlementOutcome {
  status: SettlementStatus;
  failureReason: string | null;
}

/** The tenant's settlements among `merchantTxRefs`, by reference (another tenant's are never read). */
export async function settlementOutcomes(db: DbOrTrx, tenantId: string, merchantTxRefs: string[]): Promise<Map<string, SettlementOutcome>> {
  if (merchantTxRefs.length === 0) return new Map();
  const rows: Array<{ merchant_tx_ref: string; status: SettlementStatus; failure_reason: string | null }> = await db('settlements')
    .where({ tenant_id: tenantId })
    .whereIn('merchant_tx_ref', merchantTxRefs)
    .select('merchant_tx_ref', 'status', 'failure_reason');
  return new Map(rows.map((row) => [row.merchant_tx_ref, { status: row.status, failureReason: row.failure_reason }]));
}

/**
 * How many of the tenant's settlements named by `merchantTxRefs` (a query selecting one column of references,
 * built by the caller over its own rows) are in each status; statuses with none are absent.
 */
export async function settlementStatusCounts(
  db: DbOrTrx,
  tenantId: string,
  merchantTxRefs: Knex.QueryBuilder,
): Promise<Partial<Record<SettlementStatus, number>>> {
  const rows: Array<{ status: SettlementStatus; count: string }> = await db('settlements')
    .where({ tenant_id: tenantId })
    .whereIn('merchant_tx_ref', merchantTxRefs)
    .groupBy('status')
    .select('status', db.raw('count(*) AS count'));
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}
