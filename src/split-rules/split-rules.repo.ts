import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';
import type { FeeBearer, SplitMove, SplitPart } from '../policies/split-rule/split-parts';

export interface SplitRule {
  accountId: string;
  tenantId: string;
  accountRef: string;
  feeBearer: FeeBearer;
  parts: Array<SplitPart & { toAccountRef: string }>;
  createdAt: Date;
  updatedAt: Date;
}

interface RuleRow {
  account_id: string;
  tenant_id: string;
  account_ref: string;
  fee_bearer: FeeBearer;
  created_at: Date;
  updated_at: Date;
  to_account_id: string | null;
  to_account_ref: string | null;
  basis_points: number | null;
  amount: string | null;
}

/** What a confirmed payment's split recorded: a part moved by a transfer, or not moved and why. */
export type RecordedMove = SplitMove & { transferId: string | null; notMovedReason: string | null };

export function createSplitRulesRepo(db: DbOrTrx) {
  return {
    /** The rules of these accounts, parts in order; `locked`: share-locked until the transaction ends (no change meanwhile). */
    async rulesOf(accountIds: string[], options: { locked?: boolean } = {}): Promise<Map<string, SplitRule>> {
      if (accountIds.length === 0) return new Map();
      const query = db('split_rules as r')
        .join('virtual_accounts as a', 'a.id', 'r.account_id')
        .leftJoin('split_rule_parts as p', 'p.account_id', 'r.account_id')
        .leftJoin('virtual_accounts as t', 't.id', 'p.to_account_id')
        .whereIn('r.account_id', accountIds)
        .orderBy([{ column: 'r.account_id' }, { column: 'p.position' }])
        .select(
          'r.account_id',
          'r.tenant_id',
          'a.account_ref',
          'r.fee_bearer',
          'r.created_at',
          'r.updated_at',
          'p.to_account_id',
          't.account_ref as to_account_ref',
          'p.basis_points',
          'p.amount',
        );
      const rows: RuleRow[] = await (options.locked ? query.forShare('r') : query);
      const rules = new Map<string, SplitRule>();
      for (const row of rows) {
        let rule = rules.get(row.account_id);
        if (!rule) {
          rule = {
            accountId: row.account_id,
            tenantId: row.tenant_id,
            accountRef: row.account_ref,
            feeBearer: row.fee_bearer,
            parts: [],
            createdAt: row.created_at,
            updatedAt: row.updated_at,
          };
          rules.set(row.account_id, rule);
        }
        if (row.to_account_id !== null)
          rule.parts.push({
            toAccountId: row.to_account_id,
            toAccountRef: row.to_account_ref!,
            basisPoints: row.basis_points,
            amount: row.amount === null ? null : koboFromDb(row.amount),
          });
      }
      return rules;
    },

    /** Replaces the account's rule (its parts in order). */
    async replace(rule: { accountId: string; tenantId: string; feeBearer: FeeBearer; parts: SplitPart[] }): Promise<void> {
      await db.raw(
        `INSERT INTO split_rules (account_id, tenant_id, fee_bearer) VALUES (?, ?, ?)
         ON CONFLICT (account_id) DO UPDATE SET fee_bearer = EXCLUDED.fee_bearer, updated_at = now()`,
        [rule.accountId, rule.tenantId, rule.feeBearer],
      );
      await db('split_rule_parts').where({ account_id: rule.accountId }).delete();
      await db('split_rule_parts').insert(
        rule.parts.map((part, index) => ({
          account_id: rule.accountId,
          position: index + 1,
          to_account_id: part.toAccountId,
          basis_points: part.basisPoints,
          amount: part.amount === null ? null : part.amount.toString(),
        })),
      );
    },

    /** True when the account had a rule. */
    async remove(accountId: string): Promise<boolean> {
      return (await db('split_rules').where({ account_id: accountId }).delete()) > 0;
    },

    /**
     * The parts of a payment's split that moved and were not taken back, in order; locked until the transaction
     * ends, so two compensations of one payment cannot both take them.
     */
    async movedNotTakenBack(
      paymentEntryId: string,
    ): Promise<Array<{ position: number; toAccountId: string; amount: Kobo; transferId: string }>> {
      const rows: Array<{ position: number; to_account_id: string; amount: string; transfer_id: string }> = await db('split_moves')
        .where({ payment_entry_id: paymentEntryId })
        .whereNotNull('transfer_id')
        .whereNull('taken_back_entry_id')
        .orderBy('position')
        .forUpdate()
        .select('position', 'to_account_id', 'amount', 'transfer_id');
      return rows.map((row) => ({
        position: row.position,
        toAccountId: row.to_account_id,
        amount: koboFromDb(row.amount),
        transferId: row.transfer_id,
      }));
    },

    /** A moved part taken back from its receiver by the debit `entryId`. */
    async recordTakenBack(paymentEntryId: string, position: number, entryId: string): Promise<void> {
      const updated = await db('split_moves')
        .where({ payment_entry_id: paymentEntryId, position })
        .whereNotNull('transfer_id')
        .whereNull('taken_back_entry_id')
        .update({ taken_back_entry_id: entryId });
      if (updated !== 1) throw new Error(`split part ${position} of payment ${paymentEntryId} was not moved, or was taken back already`);
    },

    async recordMoves(tenantId: string, paymentEntryId: string, fromAccountId: string, moves: RecordedMove[]): Promise<void> {
      if (moves.length === 0) return;
      await db('split_moves').insert(
        moves.map((move) => ({
          payment_entry_id: paymentEntryId,
          position: move.position,
          tenant_id: tenantId,
          from_account_id: fromAccountId,
          to_account_id: move.toAccountId,
          amount: move.amount.toString(),
          transfer_id: move.transferId,
          not_moved_reason: move.notMovedReason,
        })),
      );
    },
  };
}
