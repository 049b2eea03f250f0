import { API_KEY_ACTOR, createAuditLog, type AuditAction, type AuditActor, type AuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import type { Jobs } from '../contracts/jobs';
import { isUniqueViolation, type Db } from '../db';
import { AppError, ConflictError, NotFoundError } from '../errors';
import { paginate, invalidCursor, uuidCursor } from '../http/pagination';
import type { Pagination } from '../http/schemas';
import { isUuid, uuidv7 } from '../ids';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import type { RateLimits } from '../rate-limits/rate-limits';
import type { SettlementsService } from '../settlements/settlements.service';
import { createOutboxRepo } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { isTransientFailure, judgeItemFields } from './settlement-batch-items';
import { batchCounts, itemViews, type BatchItemView } from './settlement-batch-reads';
import { createSettlementBatchesRepo, type BatchRecord } from './settlement-batches.repo';
import type { BatchCounts, BatchItemInput, CreateBatchBody } from './settlement-batches.schemas';

/** Who acts on a batch: a dashboard user (audited), or a call with one of the tenant's API keys. */
export type BatchActor = AuditActor | { tenantId: string };

const isUser = (actor: BatchActor): actor is AuditActor => 'email' in actor;

/** A batch's creation or cancel in the audit log, under the dashboard user or as the tenant's API key. */
function recordAudit(
  log: AuditLog,
  actor: BatchActor,
  action: Extract<AuditAction, `settlement_batch.${string}`>,
  batchId: string,
  detail: Record<string, unknown>,
): Promise<void> {
  const target = { type: 'settlement_batch', id: batchId };
  return isUser(actor) ? log.record(actor, action, target, detail) : log.recordAs(actor.tenantId, API_KEY_ACTOR, action, target, detail);
}

export interface BatchSummary {
  id: string;
  status: BatchRecord['status'];
  counts: BatchCounts;
  createdAt: Date;
}

export interface BatchView extends BatchSummary {
  items: BatchItemView[];
  pagination: Pagination;
}

export interface DryRunItem {
  reference: string;
  valid: boolean;
  reason: string | null;
}

/** Wakes a batch's workflow after a cancel, best effort (its next step reads the cancel anyway). */
type BatchWaker = (batchId: string) => Promise<void>;

const batchNotFound = () => new NotFoundError('settlement batch not found');

/**
 * Bulk payouts: a batch of items kept in Postgres, each of which its workflow makes into an ordinary
 * settlement (settlements' `initiate`) in request order. Reads here join each item to its settlement's
 * status as it is now.
 */
export function createSettlementBatchesService(deps: {
  db: Db;
  config: Pick<Config, 'REQUEST_HASH_SECRET'>;
  jobs: Pick<Jobs, 'settlementBatch'>;
  starter: Pick<WorkflowStarter, 'kick'>;
  settlements: Pick<SettlementsService, 'checkAhead'>;
  /** Per tenant and weighted by items, here rather than in a route, so the API's and the dashboard's batches count alike. */
  limits: Pick<RateLimits, 'settlementBatchItems'>;
  wake: BatchWaker;
}) {
  const { db, config, jobs, starter, settlements, limits, wake } = deps;
  const batches = createSettlementBatchesRepo(db);

  async function requireBatch(tenantId: string, id: string): Promise<BatchRecord> {
    const batch = isUuid(id) ? await batches.find(tenantId, id.toLowerCase()) : undefined;
    if (!batch) throw batchNotFound();
    return batch;
  }

  async function summary(batch: BatchRecord): Promise<BatchSummary> {
    return { id: batch.id, status: batch.status, counts: await batchCounts(db, batch), createdAt: batch.createdAt };
  }

  /** A replay under a key already used: the batch it made, when the body is the same. */
  function answerReplay(batch: BatchRecord, items: BatchItemInput[]): Promise<BatchSummary> {
    if (!sameRequest(batch.requestHash, config.REQUEST_HASH_SECRET, items)) throw idempotencyMismatch();
    return summary(batch);
  }

  /**
   * Why an item would be refused now (null: it may go), by the settle's own checks in its order and in its
   * words, writing nothing and asking the provider no name. An outage is no item's refusal: the dry run fails.
   */
  async function dryRunReason(tenantId: string, item: BatchItemInput): Promise<string | null> {
    const { amount, bankCode, accountNumber, beneficiaryId, narration } = item;
    const fields = judgeItemFields({ amount, bankCode, accountNumber, beneficiaryId, narration });
    if (!fields.ok) return fields.reason;
    try {
      await settlements.checkAhead(tenantId, item.accountRef, fields.request);
      return null;
    } catch (error) {
      if (error instanceof AppError && !isTransientFailure(error)) return error.message;
      throw error;
    }
  }

  return {
    /**
     * Writes the batch and its items as sent, with its workflow's start, in one transaction under the
     * Idempotency-Key; the workflow starts after the commit. A replay of the key answers the batch it made.
     */
    async create(actor: BatchActor, body: CreateBatchBody, idempotencyKey: string): Promise<BatchSummary> {
      const { tenantId } = actor;
      await limits.settlementBatchItems.consume(tenantId, body.items.length);
      const earlier = await batches.findByKey(tenantId, idempotencyKey);
      if (earlier) return answerReplay(earlier, body.items);
      const id = uuidv7();
      const job = jobs.settlementBatch({ batchId: id, tenantId });
      try {
        await db.transaction(async (trx) => {
          await createSettlementBatchesRepo(trx).insert(
            {
              id,
              tenantId,
              status: 'validating',
              itemCount: body.items.length,
              idempotencyKey,
              requestHash: requestHash(config.REQUEST_HASH_SECRET, body.items),
              createdBy: isUser(actor) ? actor.id : null,
            },
            body.items.map((item, position) => ({
              position,
              reference: item.reference,
              accountRef: item.accountRef,
              amount: item.amount,
              bankCode: item.bankCode ?? null,
              accountNumber: item.accountNumber ?? null,
              beneficiaryId: item.beneficiaryId ?? null,
              narration: item.narration ?? null,
            })),
          );
          await createOutboxRepo(trx).enqueue([job]);
          await recordAudit(createAuditLog(trx), actor, 'settlement_batch.created', id, { items: body.items.length, idempotencyKey });
        });
      } catch (error) {
        // A concurrent request under the same key committed first: its batch is the answer.
        if (!isUniqueViolation(error)) throw error;
        const first = await batches.findByKey(tenantId, idempotencyKey);
        if (!first) throw error;
        return answerReplay(first, body.items);
      }
      starter.kick([job]);
      return summary((await batches.findById(id))!);
    },

    /** Every item judged now, in order, as far as it can be without moving money: nothing is written. */
    async dryRun(tenantId: string, body: CreateBatchBody): Promise<DryRunItem[]> {
      await limits.settlementBatchItems.consume(tenantId, body.items.length);
      const judged: DryRunItem[] = [];
      for (const item of body.items) {
        const reason = await dryRunReason(tenantId, item);
        judged.push({ reference: item.reference, valid: reason === null, reason });
      }
      return judged;
    },

    /** The batch with a page of its items in request order; `after` is the previous page's last reference. */
    async get(tenantId: string, id: string, page: { after?: string | undefined; limit: number }): Promise<BatchView> {
      const batch = await requireBatch(tenantId, id);
      let afterPosition = -1;
      if (page.after !== undefined && page.after !== '') {
        const position = await batches.itemPosition(batch.id, page.after);
        if (position === undefined) throw invalidCursor();
        afterPosition = position;
      }
      const rows = await batches.itemsPage(batch.id, afterPosition, page.limit + 1);
      const items = paginate(rows, page.limit, (row) => row.reference);
      return { ...(await summary(batch)), items: await itemViews(db, tenantId, items.items), pagination: items.pagination };
    },

    /** The tenant's batches, newest first. */
    async list(
      tenantId: string,
      page: { after?: string | undefined; limit: number },
    ): Promise<{ batches: BatchSummary[]; pagination: Pagination }> {
      const rows = await batches.list(tenantId, uuidCursor(page.after), page.limit + 1);
      const listed = paginate(rows, page.limit, (row) => row.id);
      return { batches: await Promise.all(listed.items.map(summary)), pagination: listed.pagination };
    },

    /**
     * Stops the items not yet initiated: they fail with reason "cancelled"; items already settling go on.
     * Under the batch's lock, and each item's initiation checks that it is still queued in its own
     * transaction, so no item is both cancelled and paid. Cancelling a cancelled batch answers it again.
     */
    async cancel(actor: BatchActor, id: string): Promise<BatchSummary> {
      const found = await requireBatch(actor.tenantId, id);
      const cancelled = await db.transaction(async (trx) => {
        const repo = createSettlementBatchesRepo(trx);
        const batch = (await repo.lock(found.id))!;
        if (batch.status === 'cancelled') return false;
        if (batch.completedAt !== null) throw new ConflictError(`settlement batch is already ${batch.status}`);
        await repo.markCancelled(batch.id);
        const stopped = await repo.refuseQueued(batch.id, 'cancelled');
        await recordAudit(createAuditLog(trx), actor, 'settlement_batch.cancelled', batch.id, { stopped });
        return true;
      });
      if (cancelled) await wake(found.id).catch(() => undefined);
      return summary((await batches.findById(found.id))!);
    },
  };
}

export type SettlementBatchesService = ReturnType<typeof createSettlementBatchesService>;
