import type { DbOrTrx } from '../db';
import { koboFromDb } from '../money';
import type { VelocityRule, WindowSoFar } from '../policies/velocity/velocity-rules';

interface VelocityRuleRow {
  id: string;
  subject: VelocityRule['subject'];
  measure: VelocityRule['measure'];
  scope: VelocityRule['scope'];
  window_seconds: number;
  threshold: string;
  action: VelocityRule['action'];
  message: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface StoredVelocityRule extends VelocityRule {
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = ['id', 'subject', 'measure', 'scope', 'window_seconds', 'threshold', 'action', 'message', 'created_at', 'updated_at'];

const ruleOf = (row: VelocityRuleRow): StoredVelocityRule => ({
  id: row.id,
  subject: row.subject,
  measure: row.measure,
  scope: row.scope,
  windowSeconds: row.window_seconds,
  threshold: BigInt(row.threshold),
  action: row.action,
  message: row.message,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const rowOf = (rule: VelocityRule) => ({
  subject: rule.subject,
  measure: rule.measure,
  scope: rule.scope,
  window_seconds: rule.windowSeconds,
  threshold: rule.threshold.toString(),
  action: rule.action,
  message: rule.message,
});

/** The payout a rule's window is read for: its account and destination. */
export interface JudgedPayout {
  tenantId: string;
  accountId: string;
  bankCode: string;
  accountNumber: string;
}

/**
 * The payouts of a rule's scope: the account's, its customer's accounts', or the tenant's to the destination. A
 * settlement counts unless its money came back (failed, refunded); a payout waiting for approval counts, its money
 * reserved (an approved one is its settlement).
 */
const SCOPE_SQL: Record<VelocityRule['scope'], { settlements: string; approvals: string }> = {
  account: { settlements: 's.account_id = :account_id', approvals: 'p.account_id = :account_id' },
  customer: {
    settlements:
      's.account_id IN (SELECT id FROM virtual_accounts WHERE customer_id = (SELECT customer_id FROM virtual_accounts WHERE id = :account_id))',
    approvals:
      'p.account_id IN (SELECT id FROM virtual_accounts WHERE customer_id = (SELECT customer_id FROM virtual_accounts WHERE id = :account_id))',
  },
  destination: {
    settlements: 's.tenant_id = :tenant_id AND s.account_number = :account_number AND s.bank_code = :bank_code',
    approvals: 'p.tenant_id = :tenant_id AND p.account_number = :account_number AND p.bank_code = :bank_code',
  },
};

export function createVelocityRulesRepo(db: DbOrTrx) {
  return {
    async list(tenantId: string): Promise<StoredVelocityRule[]> {
      const rows: VelocityRuleRow[] = await db('velocity_rules').where({ tenant_id: tenantId }).orderBy('id').select(COLUMNS);
      return rows.map(ruleOf);
    },

    async find(tenantId: string, id: string): Promise<StoredVelocityRule | undefined> {
      const row: VelocityRuleRow | undefined = await db('velocity_rules').where({ tenant_id: tenantId, id }).first(COLUMNS);
      return row ? ruleOf(row) : undefined;
    },

    async insert(tenantId: string, rule: VelocityRule): Promise<void> {
      await db('velocity_rules').insert({ id: rule.id, tenant_id: tenantId, ...rowOf(rule) });
    },

    async update(tenantId: string, rule: VelocityRule): Promise<boolean> {
      return (
        (await db('velocity_rules')
          .where({ tenant_id: tenantId, id: rule.id })
          .update({ ...rowOf(rule), updated_at: db.fn.now() })) > 0
      );
    },

    async remove(tenantId: string, id: string): Promise<boolean> {
      return (await db('velocity_rules').where({ tenant_id: tenantId, id }).delete()) > 0;
    },

    /**
     * What the rule's scope paid out within its window before now (the clock, not the transaction's start: a payout
     * committed while this one waited for the lock is in it). Read under the lock that serialises the scope's payouts.
     */
    async windowSoFar(rule: VelocityRule, payout: JudgedPayout): Promise<WindowSoFar> {
      const scope = SCOPE_SQL[rule.scope];
      const result = await db.raw(
        `WITH since AS (SELECT clock_timestamp() - make_interval(secs => :window_seconds) AS at),
         paid AS (
           SELECT s.amount FROM settlements s
            WHERE ${scope.settlements} AND s.created_at > (SELECT at FROM since) AND s.status NOT IN ('failed', 'refunded')
           UNION ALL
           SELECT p.amount FROM payout_approvals p
            WHERE ${scope.approvals} AND p.created_at > (SELECT at FROM since) AND p.status = 'awaiting_approval'
         )
         SELECT count(*) AS count, coalesce(sum(amount), 0) AS amount FROM paid`,
        {
          window_seconds: rule.windowSeconds,
          account_id: payout.accountId,
          tenant_id: payout.tenantId,
          account_number: payout.accountNumber,
          bank_code: payout.bankCode,
        },
      );
      const row = result.rows[0] as { count: string; amount: string };
      return { count: BigInt(row.count), amount: koboFromDb(row.amount) };
    },
  };
}
