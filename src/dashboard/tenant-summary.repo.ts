import type { DbOrTrx } from '../db';
import { dailyFlowsOfTenant } from '../ledger/ledger-reads';
import { koboFromDb, type Kobo } from '../money';
import { countUnreplayedDeadLetters } from '../webhooks/deliveries.access';

/** Days in the tenant summary are Lagos business days (WAT, no daylight saving). */
export const BUSINESS_TIME_ZONE = 'Africa/Lagos';
const FLOW_DAYS = 30;
const FAILED_SETTLEMENT_WINDOW_DAYS = 30;

interface TenantBalances {
  accounts: number;
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
}

interface DailyFlow {
  day: string;
  inflow: Kobo;
  outflow: Kobo;
}

interface AttentionCounts {
  kycReviews: number;
  misdirectedPayments: number;
  deadLetters: number;
  failedSettlements: number;
  /** Accounts below zero (a spent provisional credit reversed): they settle nothing until topped up. */
  accountsInDeficit: number;
  /** Open reconciliation findings on the tenant's accounts (what a run reported and nobody resolved). */
  reconciliationExceptions: number;
}

const count = (row: { count?: string | number } | undefined): number => Number(row?.count ?? 0);

/** The tenant summary's aggregates (balances, daily flows, what needs attention); each is one query over an index of the tenant's rows. */
export function createTenantSummaryRepo(db: DbOrTrx) {
  return {
    async balances(tenantId: string): Promise<TenantBalances> {
      const row: { accounts: string; ledger: string | null; pending: string | null } = await db('virtual_accounts')
        .where({ tenant_id: tenantId })
        .first(db.raw('count(*) AS accounts'), db.raw('sum(ledger_balance) AS ledger'), db.raw('sum(pending_credits) AS pending'));
      return { accounts: Number(row.accounts), ledgerBalance: koboFromDb(row.ledger ?? 0), pendingCredits: koboFromDb(row.pending ?? 0) };
    },

    /**
     * Money in (payment credits, net of the provider's fee) and out (settlement debits) per Lagos day
     * over the last FLOW_DAYS days, today included; reversed entries count on neither side. Days with
     * nothing are zero.
     */
    async dailyFlows(tenantId: string): Promise<DailyFlow[]> {
      return dailyFlowsOfTenant(db, tenantId, BUSINESS_TIME_ZONE, FLOW_DAYS - 1);
    },

    async attention(tenantId: string): Promise<AttentionCounts> {
      const [kycReviews, misdirectedPayments, deadLetters, failedSettlements, accountsInDeficit, reconciliationExceptions] =
        await Promise.all([
          db('customers').where({ tenant_id: tenantId, kyc_status: 'pending_review' }).count({ count: '*' }).first().then(count),
          db('inbound_events')
            .where({ tenant_id: tenantId, category: 'misdirected' })
            .whereNull('assigned_at')
            .count({ count: '*' })
            .first()
            .then(count),
          countUnreplayedDeadLetters(db, tenantId),
          db('settlements')
            .where({ tenant_id: tenantId, status: 'failed' })
            .where('updated_at', '>', db.raw('now() - make_interval(days => ?)', [FAILED_SETTLEMENT_WINDOW_DAYS]))
            .count({ count: '*' })
            .first()
            .then(count),
          db('virtual_accounts').where({ tenant_id: tenantId }).whereNotNull('deficit_since').count({ count: '*' }).first().then(count),
          db('reconciliation_exceptions').where({ tenant_id: tenantId, status: 'open' }).count({ count: '*' }).first().then(count),
        ]);
      return { kycReviews, misdirectedPayments, deadLetters, failedSettlements, accountsInDeficit, reconciliationExceptions };
    },
  };
}
