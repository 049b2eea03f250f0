import type { Knex } from 'knex';
import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';
import type { BatchApprovalReason } from '../policies/batch-approval/batch-approval';

export type BatchStatus =
  | 'scheduled'
  | 'awaiting_approval'
  | 'validating'
  | 'processing'
  | 'completed'
  | 'completed_with_failures'
  | 'cancelled'
  | 'rejected'
  | 'expired';

/** A batch the approval policy held: why, what it reserved, until when, and who decided (null until someone did). */
export interface BatchApproval {
  reasons: BatchApprovalReason[];
  total: Kobo;
  expiresAt: Date;
  /** The maker's email (read with the held batch; null for an API key's batch, or where not read). */
  makerEmail: string | null;
  decidedBy: string | null;
  decidedByEmail: string | null;
  decidedAt: Date | null;
  decisionNote: string | null;
}

export interface BatchRecord {
  id: string;
  tenantId: string;
  status: BatchStatus;
  itemCount: number;
  idempotencyKey: string;
  requestHash: string;
  createdBy: string | null;
  /** The tenant's own data on the batch, fixed when it was made. */
  metadata: Metadata;
  createdAt: Date;
  cancelledAt: Date | null;
  completedAt: Date | null;
  /** Null for a batch the approval policy did not hold. */
  approval: BatchApproval | null;
  /** When a scheduled batch runs; null for one never scheduled. Its items' reservations are `scheduled_payout` ones. */
  scheduledFor: Date | null;
}

export interface BatchItemRecord {
  batchId: string;
  position: number;
  reference: string;
  accountRef: string;
  /** As sent: judged with the item's other values when its turn comes. */
  amount: string;
  bankCode: string | null;
  accountNumber: string | null;
  beneficiaryId: string | null;
  narration: string | null;
  /** The tenant's own data on the item, fixed with the batch; its settlement carries it. */
  metadata: Metadata;
  merchantTxRef: string | null;
  failureReason: string | null;
  /** The owner of the item's reservation (batch_approval, or scheduled_payout in a scheduled batch; null: nothing reserved for it). */
  holdId: string | null;
  /** Why the dry run flagged the item when its held batch was made (null: not flagged, or not held). */
  flaggedReason: string | null;
}

interface BatchRow {
  id: string;
  tenant_id: string;
  status: BatchStatus;
  item_count: number;
  idempotency_key: string;
  request_hash: string;
  created_by: string | null;
  metadata: Metadata;
  created_at: Date;
  cancelled_at: Date | null;
  completed_at: Date | null;
  approval_reasons: BatchApprovalReason[] | null;
  approval_total: string | null;
  approval_expires_at: Date | null;
  decided_by: string | null;
  maker_email?: string | null;
  decided_by_email?: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  scheduled_for: Date | null;
}

interface ItemRow {
  batch_id: string;
  position: number;
  reference: string;
  account_ref: string;
  amount: string;
  bank_code: string | null;
  account_number: string | null;
  beneficiary_id: string | null;
  narration: string | null;
  metadata: Metadata;
  merchant_tx_ref: string | null;
  failure_reason: string | null;
  hold_id: string | null;
  flagged_reason: string | null;
}

const toBatch = (row: BatchRow): BatchRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  status: row.status,
  itemCount: row.item_count,
  idempotencyKey: row.idempotency_key,
  requestHash: row.request_hash,
  createdBy: row.created_by,
  metadata: row.metadata,
  createdAt: row.created_at,
  cancelledAt: row.cancelled_at,
  completedAt: row.completed_at,
  approval:
    row.approval_expires_at === null
      ? null
      : {
          reasons: row.approval_reasons ?? [],
          total: koboFromDb(row.approval_total ?? '0'),
          expiresAt: row.approval_expires_at,
          makerEmail: row.maker_email ?? null,
          decidedBy: row.decided_by,
          decidedByEmail: row.decided_by_email ?? null,
          decidedAt: row.decided_at,
          decisionNote: row.decision_note,
        },
  scheduledFor: row.scheduled_for,
});

const toItem = (row: ItemRow): BatchItemRecord => ({
  batchId: row.batch_id,
  position: row.position,
  reference: row.reference,
  accountRef: row.account_ref,
  amount: row.amount,
  bankCode: row.bank_code,
  accountNumber: row.account_number,
  beneficiaryId: row.beneficiary_id,
  narration: row.narration,
  metadata: row.metadata,
  merchantTxRef: row.merchant_tx_ref,
  failureReason: row.failure_reason,
  holdId: row.hold_id,
  flaggedReason: row.flagged_reason,
});

/** Rows per INSERT statement when a batch's items are written (a 5,000-item batch takes ten). */
const INSERT_CHUNK = 500;

/** An item not judged yet: no settlement, no refusal. */
const queued = (query: Knex.QueryBuilder) => query.whereNull('merchant_tx_ref').whereNull('failure_reason');

export function createSettlementBatchesRepo(db: DbOrTrx) {
  const items = () => db('settlement_batch_items');
  const heldWithNames = () =>
    db('settlement_batches as b')
      .leftJoin('dashboard_users as m', 'm.id', 'b.created_by')
      .leftJoin('dashboard_users as d', 'd.id', 'b.decided_by')
      .whereNotNull('b.approval_expires_at')
      .select('b.*', 'm.email as maker_email', 'd.email as decided_by_email');
  return {
    async insert(
      batch: Omit<BatchRecord, 'createdAt' | 'cancelledAt' | 'completedAt' | 'approval'> & {
        approval: Pick<BatchApproval, 'reasons' | 'total' | 'expiresAt'> | null;
      },
      rows: Omit<BatchItemRecord, 'batchId' | 'merchantTxRef' | 'failureReason'>[],
    ) {
      await db('settlement_batches').insert({
        id: batch.id,
        tenant_id: batch.tenantId,
        status: batch.status,
        item_count: batch.itemCount,
        idempotency_key: batch.idempotencyKey,
        request_hash: batch.requestHash,
        created_by: batch.createdBy,
        metadata: JSON.stringify(batch.metadata),
        approval_reasons: batch.approval?.reasons ?? null,
        approval_total: batch.approval?.total.toString() ?? null,
        approval_expires_at: batch.approval?.expiresAt ?? null,
        scheduled_for: batch.scheduledFor,
      });
      for (let start = 0; start < rows.length; start += INSERT_CHUNK)
        await items().insert(
          rows.slice(start, start + INSERT_CHUNK).map((item) => ({
            batch_id: batch.id,
            position: item.position,
            reference: item.reference,
            account_ref: item.accountRef,
            amount: item.amount,
            bank_code: item.bankCode,
            account_number: item.accountNumber,
            beneficiary_id: item.beneficiaryId,
            narration: item.narration,
            metadata: JSON.stringify(item.metadata),
            hold_id: item.holdId,
            flagged_reason: item.flaggedReason,
          })),
        );
    },

    async find(tenantId: string, id: string): Promise<BatchRecord | undefined> {
      const row: BatchRow | undefined = await db('settlement_batches').where({ tenant_id: tenantId, id }).first();
      return row && toBatch(row);
    },

    async findById(id: string): Promise<BatchRecord | undefined> {
      const row: BatchRow | undefined = await db('settlement_batches').where({ id }).first();
      return row && toBatch(row);
    },

    /** Of these batches, the ones not ended yet (completed_at unset): cancelled ones still following their items included. */
    async listOpen(ids: string[]): Promise<BatchRecord[]> {
      if (ids.length === 0) return [];
      const rows: BatchRow[] = await db('settlement_batches')
        .whereIn('id', ids)
        .whereNull('completed_at')
        // A batch whose tenant moved to another cluster is resumed there, never here.
        .whereNotIn('tenant_id', db('tenants').whereNotNull('moved_out_at').select('id'));
      return rows.map(toBatch);
    },

    async findByKey(tenantId: string, idempotencyKey: string): Promise<BatchRecord | undefined> {
      const row: BatchRow | undefined = await db('settlement_batches')
        .where({ tenant_id: tenantId, idempotency_key: idempotencyKey })
        .first();
      return row && toBatch(row);
    },

    /** Locks the batch row for the caller's transaction: a cancel and an item's initiation or the batch's end take turns. */
    async lock(id: string): Promise<BatchRecord | undefined> {
      const row: BatchRow | undefined = await db('settlement_batches').where({ id }).forUpdate().first();
      return row && toBatch(row);
    },

    /**
     * Takes the tenant's batch room lock for the caller's transaction: items of the tenant's batches are tied to
     * their settlements one transaction at a time, each counting the settlements in flight after the last commit.
     */
    async lockTenantRoom(tenantId: string): Promise<void> {
      await db.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`settlement-batch-room:${tenantId}`]);
    },

    /**
     * The tenant's batches, newest first; `afterId` is the previous page's last. With `metadata`, only those carrying
     * every pair of it (`@>`, served by the GIN index).
     */
    async list(tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<BatchRecord[]> {
      const query = db('settlement_batches').where({ tenant_id: tenantId }).orderBy('id', 'desc').limit(limit);
      if (afterId !== null) query.where('id', '<', afterId);
      if (metadata) query.whereRaw('metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      return ((await query) as BatchRow[]).map(toBatch);
    },

    async itemPosition(batchId: string, reference: string): Promise<number | undefined> {
      const row: { position: number } | undefined = await items().where({ batch_id: batchId, reference }).first('position');
      return row?.position;
    },

    /** Items in request order after `afterPosition` (-1: from the first); with `metadata`, only those carrying every pair of it. */
    async itemsPage(batchId: string, afterPosition: number, limit: number, metadata?: Metadata): Promise<BatchItemRecord[]> {
      const query = items().where({ batch_id: batchId }).where('position', '>', afterPosition).orderBy('position').limit(limit);
      if (metadata) query.whereRaw('metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      const rows: ItemRow[] = await query;
      return rows.map(toItem);
    },

    /** The next items not judged yet, in request order. */
    async nextQueued(batchId: string, limit: number): Promise<BatchItemRecord[]> {
      const rows: ItemRow[] = await queued(items().where({ batch_id: batchId }))
        .orderBy('position')
        .limit(limit);
      return rows.map(toItem);
    },

    /** Ties an item to the settlement it made, in the settlement's transaction; false when the item is no longer queued (cancelled). */
    async markInitiated(batchId: string, position: number, merchantTxRef: string): Promise<boolean> {
      return (await queued(items().where({ batch_id: batchId, position })).update({ merchant_tx_ref: merchantTxRef })) === 1;
    },

    async markRefused(batchId: string, position: number, reason: string): Promise<void> {
      await queued(items().where({ batch_id: batchId, position })).update({ failure_reason: reason });
    },

    /** Fails every item still queued with `reason`; returns how many. */
    async refuseQueued(batchId: string, reason: string): Promise<number> {
      return queued(items().where({ batch_id: batchId })).update({ failure_reason: reason });
    },

    /** Items without a settlement: still queued, or refused (failed before submission). */
    async unsettledCounts(batchId: string): Promise<{ queued: number; refused: number }> {
      const row = (await items()
        .where({ batch_id: batchId })
        .whereNull('merchant_tx_ref')
        .first(
          db.raw('count(*) FILTER (WHERE failure_reason IS NULL) AS queued'),
          db.raw('count(*) FILTER (WHERE failure_reason IS NOT NULL) AS refused'),
        )) as {
        queued: string;
        refused: string;
      };
      return { queued: Number(row.queued), refused: Number(row.refused) };
    },

    /** The references of the batch's settlements, as a subquery. */
    settlementRefsOf(batchId: string): Knex.QueryBuilder {
      return items().where({ batch_id: batchId }).whereNotNull('merchant_tx_ref').select('merchant_tx_ref');
    },

    /** The references of the settlements of the tenant's batches still open, as a subquery. */
    openSettlementRefsOf(tenantId: string): Knex.QueryBuilder {
      return items()
        .join('settlement_batches', 'settlement_batches.id', 'settlement_batch_items.batch_id')
        .where({ 'settlement_batches.tenant_id': tenantId })
        .whereNull('settlement_batches.completed_at')
        .whereNotNull('settlement_batch_items.merchant_tx_ref')
        .select('settlement_batch_items.merchant_tx_ref');
    },

    /** The hold ids of the batch's items still queued that had money reserved (all of them, while it awaits approval). */
    async queuedHoldIds(batchId: string): Promise<string[]> {
      return queued(items().where({ batch_id: batchId }))
        .whereNotNull('hold_id')
        .pluck('hold_id');
    },

    /** The batches whose items own these holds. */
    async batchIdsOfHolds(holdIds: string[]): Promise<string[]> {
      if (holdIds.length === 0) return [];
      return items().whereIn('hold_id', holdIds).distinct().pluck('batch_id');
    },

    /** The items the dry run flagged when the held batch was made, in request order, up to `limit`. */
    async flaggedItems(batchId: string, limit: number): Promise<BatchItemRecord[]> {
      const rows: ItemRow[] = await items().where({ batch_id: batchId }).whereNotNull('flagged_reason').orderBy('position').limit(limit);
      return rows.map(toItem);
    },

    async flaggedCount(batchId: string): Promise<number> {
      const row = (await items().where({ batch_id: batchId }).whereNotNull('flagged_reason').count('* as count').first()) as {
        count: string;
      };
      return Number(row.count);
    },

    /** A held batch with the email of who decided it. */
    async findHeld(tenantId: string, id: string): Promise<BatchRecord | undefined> {
      const row: BatchRow | undefined = await heldWithNames().where({ 'b.tenant_id': tenantId, 'b.id': id }).first();
      return row && toBatch(row);
    },

    /**
     * The tenant's held batches of one status, newest first, before the cursor's id; `approved`: every batch a user
     * approved, whatever it runs through since.
     */
    async listHeld(
      tenantId: string,
      status: 'awaiting_approval' | 'approved' | 'rejected' | 'expired',
      beforeId: string | null,
      limit: number,
    ): Promise<BatchRecord[]> {
      const select = heldWithNames().where({ 'b.tenant_id': tenantId }).orderBy('b.id', 'desc').limit(limit);
      if (status === 'approved') select.whereNotNull('b.decided_by').whereNot('b.status', 'rejected');
      else select.where({ 'b.status': status });
      if (beforeId !== null) select.where('b.id', '<', beforeId);
      return ((await select) as BatchRow[]).map(toBatch);
    },

    /**
     * Records a decision on a batch still awaiting approval: approved, it is validating (its workflow runs it); rejected,
     * it has ended. Whether it was still awaiting.
     */
    async decide(id: string, decision: { status: 'approved' | 'rejected'; userId: string; note: string | null }): Promise<boolean> {
      const ended = decision.status === 'rejected';
      const updated = await db('settlement_batches')
        .where({ id, status: 'awaiting_approval' })
        .update({
          status: ended ? 'rejected' : 'validating',
          decided_by: decision.userId,
          decided_at: db.fn.now(),
          decision_note: decision.note,
          ...(ended ? { completed_at: db.fn.now() } : {}),
        });
      return updated === 1;
    },

    /** Marks expired (and ended) those of the batches still awaiting approval; the ones it marked. */
    async expire(ids: string[]): Promise<BatchRecord[]> {
      if (ids.length === 0) return [];
      const rows: BatchRow[] = await db('settlement_batches')
        .whereIn('id', ids)
        .where({ status: 'awaiting_approval' })
        .update({ status: 'expired', decided_at: db.fn.now(), completed_at: db.fn.now() })
        .returning('*');
      return rows.map(toBatch);
    },

    /** A scheduled batch whose time came runs as any batch does: validating (a cancelled one stays cancelled). */
    async markStarted(id: string): Promise<void> {
      await db('settlement_batches').where({ id, status: 'scheduled' }).update({ status: 'validating' });
    },

    /** No item waits any more: a validating batch is processing (a cancelled one stays cancelled). */
    async markProcessing(id: string): Promise<void> {
      await db('settlement_batches').where({ id, status: 'validating' }).update({ status: 'processing' });
    },

    async markCancelled(id: string): Promise<void> {
      await db('settlement_batches').where({ id }).update({ status: 'cancelled', cancelled_at: db.fn.now() });
    },

    async markCompleted(id: string, status: BatchStatus): Promise<void> {
      await db('settlement_batches').where({ id }).update({ status, completed_at: db.fn.now() });
    },
  };
}

export type SettlementBatchesRepo = ReturnType<typeof createSettlementBatchesRepo>;
