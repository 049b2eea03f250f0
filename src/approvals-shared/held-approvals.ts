import type { Knex } from 'knex';
import type { DbOrTrx } from '../db';

/** Where a held item stands: waiting for a user, decided by one, or past its expiry undecided. */
export type HeldApprovalStatus = 'awaiting_approval' | 'approved' | 'rejected' | 'expired';

/**
 * The reads and writes that held payouts and held transfers share: their tables keep a status, its decision (who, when,
 * why) and an id ordered by time. `withNames` reads the table (as `alias`) with the names its records show.
 */
export function heldApprovalsOf<Row>(db: DbOrTrx, table: string, alias: string, withNames: () => Knex.QueryBuilder) {
  const column = (name: string) => `${alias}.${name}`;
  return {
    /** Records a user's decision on one still awaiting approval. */
    async decide(id: string, decision: { status: 'approved' | 'rejected'; userId: string; note: string | null }): Promise<void> {
      await db(table)
        .where({ id, status: 'awaiting_approval' })
        .update({ status: decision.status, decided_by: decision.userId, decided_at: db.fn.now(), decision_note: decision.note });
    },

    /** Marks expired those of `ids` still awaiting approval; the rows it marked. */
    async expire(ids: string[]): Promise<Row[]> {
      if (ids.length === 0) return [];
      const marked: Array<{ id: string }> = await db(table)
        .whereIn('id', ids)
        .where({ status: 'awaiting_approval' })
        .update({ status: 'expired', decided_at: db.fn.now() })
        .returning('id');
      if (marked.length === 0) return [];
      return (await withNames().whereIn(
        column('id'),
        marked.map((row) => row.id),
      )) as Row[];
    },

    /** The tenant's rows of one status, newest first, before the cursor's id. */
    async list(tenantId: string, status: HeldApprovalStatus, beforeId: string | null, limit: number): Promise<Row[]> {
      const select = withNames()
        .where({ [column('tenant_id')]: tenantId, [column('status')]: status })
        .orderBy(column('id'), 'desc')
        .limit(limit);
      if (beforeId) select.where(column('id'), '<', beforeId);
      return (await select) as Row[];
    },
  };
}
