import type { Knex } from 'knex';
import type { DbOrTrx } from '../db';
import { baseReference } from './merchant-tx-ref';
import { createPayoutApprovalsRepo, type PayoutApprovalStatus } from './payout-approvals.repo';
import { createSettlementsRepo, type AttemptOutcome, type SettlementRecord, type SettlementStatus } from './settlements.repo';

/** What other domains may read of a settlement: they reach settlements only through these. */
export type { AttemptOutcome, PayoutApprovalStatus, SettlementRecord, SettlementStatus };

export const findSettlementById = (db: DbOrTrx, id: string): Promise<SettlementRecord | undefined> =>
  createSettlementsRepo(db).findById(id);

/** The tenant of the settlement a provider's payout event names (by its reference, a retry's suffix and all). */
export async function tenantOfProviderRef(db: DbOrTrx, providerRef: string): Promise<string | undefined> {
  return (await createSettlementsRepo(db).findByRefAnyTenant(baseReference(providerRef)))?.tenantId;
}

/** A settlement's outcome as another domain follows it: its status and, once failed, why. */
export interface SettlementOutcome {
  status: SettlementStatus;
  failureReason: string | null;
}

/** The tenant's settlements among `merchantTxRefs`, by reference (another tenant's are never read). */
export async function settlementOutcomes(db: DbOrTrx, tenantId: string, merchantTxRefs: string[]): Promise<Map<string, SettlementOutcome>> {
  const outcomes = await createSettlementsRepo(db).outcomesByRefs(tenantId, merchantTxRefs);
  return new Map(outcomes.map(({ merchantTxRef, ...outcome }) => [merchantTxRef, outcome]));
}

/**
 * How many of the tenant's settlements named by `merchantTxRefs` (a query selecting one column of references,
 * built by the caller over its own rows) are in each status; statuses with none are absent.
 */
export const settlementStatusCounts = (
  db: DbOrTrx,
  tenantId: string,
  merchantTxRefs: Knex.QueryBuilder,
): Promise<Partial<Record<SettlementStatus, number>>> => createSettlementsRepo(db).statusCountsByRefs(tenantId, merchantTxRefs);

/** What became of the tenant's payouts held for approval among `merchantTxRefs` (another tenant's are never read), by reference. */
export async function heldPayoutStatuses(
  db: DbOrTrx,
  tenantId: string,
  merchantTxRefs: string[],
): Promise<Map<string, PayoutApprovalStatus>> {
  const repo = createPayoutApprovalsRepo(db);
  const held = await Promise.all(merchantTxRefs.map((merchantTxRef) => repo.findByRef(tenantId, merchantTxRef)));
  return new Map(held.flatMap((payout) => (payout ? [[payout.merchantTxRef, payout.status] as const] : [])));
}
