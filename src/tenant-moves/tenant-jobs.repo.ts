import type { Db } from '../db';

/**
 * The tenant's jobs a workflow runs, as one cluster's database holds them: what a move stops on the source and
 * starts again on the target. Read whatever the fence's mark (an open settlement marked moved out is still open).
 */
export function createTenantJobsRepo(db: Db) {
  const column = async (query: Promise<Record<string, string>[]>, name: string): Promise<string[]> =>
    (await query).map((row) => row[name]!);
  return {
    openSettlementRefs: (tenantId: string) =>
      column(
        db('settlements').where({ tenant_id: tenantId }).whereIn('status', ['pending', 'processing']).select('merchant_tx_ref'),
        'merchant_tx_ref',
      ),
    openBatchIds: (tenantId: string) =>
      column(db('settlement_batches').where({ tenant_id: tenantId }).whereNull('completed_at').select('id'), 'id'),
    scheduledPayoutRefs: (tenantId: string) =>
      column(db('scheduled_payouts').where({ tenant_id: tenantId, state: 'scheduled' }).select('merchant_tx_ref'), 'merchant_tx_ref'),
    /** Deliveries still to be sent, with the account reference their workflow carries (none for an endpoint's). */
    async openDeliveries(tenantId: string): Promise<{ deliveryId: string; accountRef: string | null }[]> {
      const rows: { id: string; account_ref: string | null }[] = await db('webhook_deliveries as d')
        .leftJoin('virtual_accounts as a', 'a.id', 'd.account_id')
        .where({ 'd.tenant_id': tenantId })
        .whereIn('d.status', ['pending', 'retrying'])
        .select('d.id', 'a.account_ref');
      return rows.map((row) => ({ deliveryId: row.id, accountRef: row.account_ref }));
    },
    /** Accounts with a balance sweep set (not deleted): each has a Schedule. */
    sweptAccountIds: (tenantId: string) =>
      column(db('balance_sweeps').where({ tenant_id: tenantId }).whereNull('deleted_at').select('account_id'), 'account_id'),
  };
}
