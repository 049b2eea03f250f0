import { findAccountByRef } from '../accounts/accounts.access';
import { batchApprovalPolicyOf } from '../approval-policies/approval-policies.access';
import { API_KEY_ACTOR, createAuditLog, type AuditAction, type AuditActor, type AuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import type { Jobs } from '../contracts/jobs';
import { isUniqueViolation, type Db, type Trx } from '../db';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors';
import { recordChange } from '../events/change-events';
import type { EventedLedger } from '../events/ledger-events';
import type { EndedReservations } from '../ledger/ledger-results';
import { createReservations, type OwnedReservation } from '../ledger/reservations';
import { formatKobo, type Kobo } from '../money';
import { batchApproval, type BatchApprovalDecision } from '../policies/batch-approval/batch-approval';
import { scheduleDecision } from '../policies/scheduled-payout/scheduled-payout';
import { scheduledNeedsApproval } from '../settlements/payout-holds';
import type { Metadata } from '../http/metadata';
import { paginate, invalidCursor, uuidCursor } from '../http/pagination';
import type { Pagination } from '../http/schemas';
import { isUuid, uuidv7 } from '../ids';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import type { RateLimits } from '../rate-limits/rate-limits';
import type { SettlementsService } from '../settlements/settlements.service';
import { createOutboxRepo } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { isTransientFailure, itemReservationKind, judgeItemFields } from './settlement-batch-items';
import { batchCounts, itemViews, type BatchItemView } from './settlement-batch-reads';
import { createSettlementBatchesRepo, type BatchItemRecord, type BatchRecord } from './settlement-batches.repo';
import type { BatchCounts, BatchItemInput, CreateBatchBody, HeldBatchStatus } from './settlement-batches.schemas';

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

/** A held batch as the Approvals page shows it: what it pays, why it waits, who made it, the items the dry run flagged. */
export interface HeldBatchView {
  batch: BatchRecord;
  approval: NonNullable<BatchRecord['approval']>;
  flagged: BatchItemRecord[];
  flaggedCount: number;
}

export interface BatchSummary {
  id: string;
  status: BatchRecord['status'];
  counts: BatchCounts;
  metadata: Metadata;
  createdAt: Date;
  scheduledFor: Date | null;
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

/**
 * What a batch's Idempotency-Key covers: its items (each with its metadata) and, when given, the batch's metadata and the
 * instant it is scheduled for. A batch with neither hashes its items alone, as batches always have.
 */
const hashedRequest = (body: CreateBatchBody): unknown =>
  body.metadata === undefined && body.scheduledFor === undefined
    ? body.items
    : {
        items: body.items,
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
        ...(body.scheduledFor !== undefined ? { scheduledFor: body.scheduledFor } : {}),
      };

/** Wakes a batch's workflow after a cancel, best effort (its next step reads the cancel anyway). */
type BatchWaker = (batchId: string) => Promise<void>;

const batchNotFound = () => new NotFoundError('settlement batch not found');
const heldBatchNotFound = () => new NotFoundError('settlement batch awaiting approval not found');

/** The audit log's actor for a held batch nobody decided in time. */
const EXPIRY_ACTOR = 'approval expiry';

/** Flagged items a held batch's view lists (the count names them all). */
const FLAGGED_SHOWN = 100;

/** A held batch's money did not cover its items on one account: nothing was written. */
class NotCovered extends Error {
  constructor(readonly accountId: string) {
    super('not covered');
  }
}

/** What a batch sets aside when it waits (for approval, or for its time): per item, its reservation (valid items) or the dry run's flag. */
interface ReservedItems {
  total: Kobo;
  items: Array<{ holdId: string | null; flaggedReason: string | null; accountId: string | null; amount: Kobo | null }>;
}

/** What holding a batch for approval sets aside, until when. */
interface BatchHold extends ReservedItems {
  decision: Extract<BatchApprovalDecision, { required: true }>;
  expiresAt: Date;
}

/**
 * Bulk payouts: a batch of items kept in Postgres, each of which its workflow makes into an ordinary
 * settlement (settlements' `initiate`) in request order. Reads here join each item to its settlement's
 * status as it is now.
 */
export function createSettlementBatchesService(deps: {
  db: Db;
  config: Pick<Config, 'REQUEST_HASH_SECRET' | 'SETTLEMENT_FUNDS'>;
  jobs: Pick<Jobs, 'settlementBatch'>;
  starter: Pick<WorkflowStarter, 'kick'>;
  settlements: Pick<SettlementsService, 'checkAhead'>;
  /** Explains a held batch refused for want of funds on one of its accounts, as a settle's `insufficient funds`. */
  funds: Pick<EventedLedger, 'insufficientFunds'>;
  /** Per tenant and weighted by items, here rather than in a route, so the API's and the dashboard's batches count alike. */
  limits: Pick<RateLimits, 'settlementBatchItems'>;
  wake: BatchWaker;
}) {
  const { db, config, jobs, starter, settlements, funds, limits, wake } = deps;
  const batches = createSettlementBatchesRepo(db);

  async function requireBatch(tenantId: string, id: string): Promise<BatchRecord> {
    const batch = isUuid(id) ? await batches.find(tenantId, id.toLowerCase()) : undefined;
    if (!batch) throw batchNotFound();
    return batch;
  }

  async function heldView(batch: BatchRecord): Promise<HeldBatchView> {
    return {
      batch,
      approval: batch.approval!,
      flagged: await batches.flaggedItems(batch.id, FLAGGED_SHOWN),
      flaggedCount: await batches.flaggedCount(batch.id),
    };
  }

  async function summary(batch: BatchRecord): Promise<BatchSummary> {
    return {
      id: batch.id,
      status: batch.status,
      counts: await batchCounts(db, batch),
      metadata: batch.metadata,
      createdAt: batch.createdAt,
      scheduledFor: batch.scheduledFor,
    };
  }

  /** A replay under a key already used: the batch it made, when the body is the same. */
  function answerReplay(batch: BatchRecord, body: CreateBatchBody): Promise<BatchSummary> {
    if (!sameRequest(batch.requestHash, config.REQUEST_HASH_SECRET, hashedRequest(body))) throw idempotencyMismatch();
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

  /** Each item's amount, when its values are those of a valid settle; else null. */
  function itemAmounts(items: BatchItemInput[]): Array<Kobo | null> {
    return items.map((item) => {
      const { amount, bankCode, accountNumber, beneficiaryId, narration } = item;
      const fields = judgeItemFields({ amount, bankCode, accountNumber, beneficiaryId, narration });
      return fields.ok ? fields.request.amount : null;
    });
  }

  /**
   * Whether the tenant's approval policy holds the batch (its total: the amounts of its items that are amounts), and
   * if so what to set aside (reservedItems) until the batch's expiry; a flagged item is shown to the approver with the
   * dry run's reason.
   */
  async function holdOf(tenantId: string, items: BatchItemInput[]): Promise<BatchHold | undefined> {
    const policy = await batchApprovalPolicyOf(db, tenantId);
    if (!policy || (policy.batchTotalAtOrAbove === null && policy.batchItemsAtOrAbove === null)) return undefined;
    const amounts = itemAmounts(items);
    const decision = batchApproval(policy, { total: amounts.reduce<Kobo>((sum, amount) => sum + (amount ?? 0n), 0n), items: items.length });
    if (!decision.required) return undefined;
    return {
      decision,
      expiresAt: new Date(Date.now() + decision.expiresAfterSeconds * 1000),
      ...(await reservedItems(tenantId, items, amounts)),
    };
  }

  /**
   * What a waiting batch sets aside: each item the dry run passes reserves its amount on its account (under a hold id
   * of its own); each it flags reserves nothing and keeps the dry run's reason (it fails at its turn).
   */
  async function reservedItems(tenantId: string, items: BatchItemInput[], amounts: Array<Kobo | null>): Promise<ReservedItems> {
    const accountIds = new Map<string, string | null>();
    const held: BatchHold['items'] = [];
    for (const [position, item] of items.entries()) {
      const reason = await dryRunReason(tenantId, item);
      const amount = amounts[position] ?? null;
      if (reason !== null || amount === null) {
        held.push({ holdId: null, flaggedReason: reason ?? 'invalid amount', accountId: null, amount: null });
        continue;
      }
      if (!accountIds.has(item.accountRef))
        accountIds.set(item.accountRef, (await findAccountByRef(db, tenantId, item.accountRef))?.id ?? null);
      held.push({ holdId: uuidv7(), flaggedReason: null, accountId: accountIds.get(item.accountRef) ?? null, amount });
    }
    const total = held.reduce<Kobo>((sum, item) => sum + (item.holdId !== null ? (item.amount ?? 0n) : 0n), 0n);
    return { total, items: held };
  }

  /**
   * Sets aside every reserved item's amount on its account, all or nothing (NotCovered names the first account short):
   * a held batch's until its expiry, a scheduled batch's until its items' turns.
   */
  async function reserveItems(
    trx: Trx,
    reserved: ReservedItems,
    as:
      | { kind: 'batch_approval'; reason: 'awaiting_approval'; expiresAt: Date }
      | { kind: 'scheduled_payout'; reason: 'scheduled'; expiresAt: null },
  ): Promise<void> {
    const reservations = reserved.items.flatMap((item) =>
      item.holdId !== null && item.accountId !== null && item.amount !== null
        ? [{ accountId: item.accountId, ownerId: item.holdId, amount: item.amount, ...as }]
        : [],
    );
    if (reservations.length === 0) return;
    const short = await createReservations(trx).reserveAllSpendable(reservations, config.SETTLEMENT_FUNDS);
    if (short) throw new NotCovered(short.shortAccountId);
  }

  /**
   * A held batch a user may decide now, read again under its row's lock by a decision: still awaiting approval, not
   * past its expiry, and (to approve) not made by this user.
   */
  function requireDecidable(
    batch: BatchRecord | undefined,
    by: AuditActor,
    decision: 'approve' | 'reject',
  ): NonNullable<BatchRecord['approval']> {
    if (!batch?.approval) throw heldBatchNotFound();
    if (batch.status !== 'awaiting_approval')
      throw new ConflictError(`this settlement batch is ${batch.status}, no longer awaiting approval`);
    if (batch.approval.expiresAt.getTime() <= Date.now()) throw new ConflictError('this settlement batch expired before it was decided');
    if (decision === 'approve' && batch.createdBy === by.id)
      throw new AppError('forbidden', 'maker_cannot_approve', 'the maker of a settlement batch cannot approve it: another user must');
    return batch.approval;
  }

  /**
   * The batch's open reservations (of its items still queued), read under their accounts' locks, then the batch's row
   * locked: the order an expiry and an item's settlement take them in.
   */
  async function lockHeld(trx: Trx, held: BatchRecord): Promise<{ batch: BatchRecord | undefined; open: OwnedReservation[] }> {
    const repo = createSettlementBatchesRepo(trx);
    const open = await createReservations(trx).openOfOwners('batch_approval', await repo.queuedHoldIds(held.id));
    await repo.lock(held.id);
    return { batch: await repo.findHeld(held.tenantId, held.id), open };
  }

  /** Releases these reservations of a batch's items, exactly what each still holds, for the reason given. */
  async function releaseHeld(
    trx: Trx,
    open: OwnedReservation[],
    reason: 'rejected' | 'cancelled',
    by: { userId: string | null; note: string | null },
    kind: 'batch_approval' | 'scheduled_payout' = 'batch_approval',
  ): Promise<void> {
    const byAccount = new Map<string, OwnedReservation[]>();
    for (const reservation of open) byAccount.set(reservation.accountId, [...(byAccount.get(reservation.accountId) ?? []), reservation]);
    const reservations = createReservations(trx);
    for (const [accountId, held] of byAccount)
      await reservations.release(
        accountId,
        held.map((reservation) =>
          kind === 'scheduled_payout'
            ? { reservationId: reservation.reservationId, kind, amount: reservation.open, reason: 'cancelled' as const, ...by }
            : { reservationId: reservation.reservationId, kind, amount: reservation.open, reason, ...by },
        ),
      );
  }

  /** A decision on a held batch: its audit entry (under the user, or the expiry) and its event. */
  async function recordDecision(
    trx: Trx,
    batch: BatchRecord,
    approval: NonNullable<BatchRecord['approval']>,
    decision: 'approved' | 'rejected' | 'expired',
    by: AuditActor | null,
    note: string | null,
  ): Promise<void> {
    const detail = {
      items: batch.itemCount,
      total: formatKobo(approval.total),
      maker: approval.makerEmail ?? (batch.createdBy === null ? API_KEY_ACTOR : null),
      note,
    };
    const action = `settlement_batch.${decision}` as const;
    const target = { type: 'settlement_batch', id: batch.id };
    if (by) await createAuditLog(trx).record(by, action, target, detail);
    else await createAuditLog(trx).recordAs(batch.tenantId, EXPIRY_ACTOR, action, target, detail);
    await recordChange(trx, {
      kind: 'settlement_batch_approval_decided',
      tenantId: batch.tenantId,
      decision,
      batchId: batch.id,
      items: batch.itemCount,
      total: approval.total,
      decidedBy: by?.email ?? null,
      note,
      metadata: batch.metadata,
    });
  }

  return {
    /**
     * Writes the batch and its items as sent, with its workflow's start, in one transaction under the
     * Idempotency-Key; the workflow starts after the commit. A replay of the key answers the batch it made. A batch
     * with scheduledFor is `scheduled`: its valid items' money is reserved now (all or nothing, as a held batch's) and
     * its workflow waits for the time; one the approval policy would hold is refused a date.
     */
    async create(actor: BatchActor, body: CreateBatchBody, idempotencyKey: string): Promise<BatchSummary> {
      const { tenantId } = actor;
      await limits.settlementBatchItems.consume(tenantId, body.items.length);
      const earlier = await batches.findByKey(tenantId, idempotencyKey);
      if (earlier) return answerReplay(earlier, body);
      const { scheduledFor } = body;
      if (scheduledFor !== undefined) {
        const decision = scheduleDecision(scheduledFor, new Date());
        if (!decision.allowed) throw new ValidationError(decision.message, [{ path: 'scheduledFor', message: decision.message }]);
      }
      const id = uuidv7();
      const job = jobs.settlementBatch({ batchId: id, tenantId });
      const hold = await holdOf(tenantId, body.items);
      if (hold && scheduledFor !== undefined) throw scheduledNeedsApproval();
      const scheduled = scheduledFor !== undefined ? await reservedItems(tenantId, body.items, itemAmounts(body.items)) : undefined;
      const reserved = hold ?? scheduled;
      try {
        await db.transaction(async (trx) => {
          await createSettlementBatchesRepo(trx).insert(
            {
              id,
              tenantId,
              status: hold ? 'awaiting_approval' : scheduled ? 'scheduled' : 'validating',
              itemCount: body.items.length,
              idempotencyKey,
              requestHash: requestHash(config.REQUEST_HASH_SECRET, hashedRequest(body)),
              createdBy: isUser(actor) ? actor.id : null,
              metadata: body.metadata ?? {},
              approval: hold ? { reasons: hold.decision.reasons, total: hold.total, expiresAt: hold.expiresAt } : null,
              scheduledFor: scheduledFor ?? null,
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
              metadata: item.metadata ?? {},
              holdId: reserved?.items[position]?.holdId ?? null,
              flaggedReason: reserved?.items[position]?.flaggedReason ?? null,
            })),
          );
          await recordAudit(createAuditLog(trx), actor, 'settlement_batch.created', id, {
            items: body.items.length,
            idempotencyKey,
            ...(hold ? { awaitingApproval: hold.decision.reasons, total: formatKobo(hold.total) } : {}),
            ...(scheduled ? { scheduledFor: scheduledFor!.toISOString(), total: formatKobo(scheduled.total) } : {}),
          });
          if (scheduled) await reserveItems(trx, scheduled, { kind: 'scheduled_payout', reason: 'scheduled', expiresAt: null });
          if (!hold) {
            await createOutboxRepo(trx).enqueue([job]);
            return;
          }
          // Held: its money is set aside now (all or nothing), and no workflow starts until it is approved.
          await reserveItems(trx, hold, { kind: 'batch_approval', reason: 'awaiting_approval', expiresAt: hold.expiresAt });
          await recordChange(trx, {
            kind: 'settlement_batch_awaiting_approval',
            tenantId,
            batchId: id,
            items: body.items.length,
            total: hold.total,
            reasons: hold.decision.reasons,
            expiresAt: hold.expiresAt,
            metadata: body.metadata ?? {},
          });
        });
      } catch (error) {
        if (error instanceof NotCovered) throw await funds.insufficientFunds(db, error.accountId, config.SETTLEMENT_FUNDS);
        // A concurrent request under the same key committed first: its batch is the answer.
        if (!isUniqueViolation(error)) throw error;
        const first = await batches.findByKey(tenantId, idempotencyKey);
        if (!first) throw error;
        return answerReplay(first, body);
      }
      if (!hold) starter.kick([job]);
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

    /**
     * The batch with a page of its items in request order; `after` is the previous page's last reference; with `metadata`,
     * only the items carrying every pair of it.
     */
    async get(
      tenantId: string,
      id: string,
      page: { after?: string | undefined; limit: number; metadata?: Metadata | undefined },
    ): Promise<BatchView> {
      const batch = await requireBatch(tenantId, id);
      let afterPosition = -1;
      if (page.after !== undefined && page.after !== '') {
        const position = await batches.itemPosition(batch.id, page.after);
        if (position === undefined) throw invalidCursor();
        afterPosition = position;
      }
      const rows = await batches.itemsPage(batch.id, afterPosition, page.limit + 1, page.metadata);
      const items = paginate(rows, page.limit, (row) => row.reference);
      return { ...(await summary(batch)), items: await itemViews(db, tenantId, items.items), pagination: items.pagination };
    },

    /** The tenant's batches, newest first; with `metadata`, only those carrying every pair of it. */
    async list(
      tenantId: string,
      page: { after?: string | undefined; limit: number; metadata?: Metadata | undefined },
    ): Promise<{ batches: BatchSummary[]; pagination: Pagination }> {
      const rows = await batches.list(tenantId, uuidCursor(page.after), page.limit + 1, page.metadata);
      const listed = paginate(rows, page.limit, (row) => row.id);
      return { batches: await Promise.all(listed.items.map(summary)), pagination: listed.pagination };
    },

    /**
     * Stops the items not yet initiated: they fail with reason "cancelled" (a scheduled batch's, before its time, all of
     * them, their money released); items already settling go on.
     * Under the batch's lock, and each item's initiation checks that it is still queued in its own
     * transaction, so no item is both cancelled and paid. Cancelling a cancelled batch answers it again.
     */
    async cancel(actor: BatchActor, id: string): Promise<BatchSummary> {
      const found = await requireBatch(actor.tenantId, id);
      const cancelled = await db.transaction(async (trx) => {
        const repo = createSettlementBatchesRepo(trx);
        // What its queued items still have reserved, under their accounts' locks, before the batch's own lock.
        const kind = itemReservationKind(found);
        const open = await createReservations(trx).openOfOwners(kind, await repo.queuedHoldIds(found.id));
        const batch = (await repo.lock(found.id))!;
        if (batch.status === 'cancelled') return false;
        if (batch.completedAt !== null) throw new ConflictError(`settlement batch is already ${batch.status}`);
        await repo.markCancelled(batch.id);
        const stopped = await repo.refuseQueued(batch.id, 'cancelled');
        await releaseHeld(trx, open, 'cancelled', { userId: isUser(actor) ? actor.id : null, note: null }, kind);
        // A batch cancelled while awaiting approval has no workflow to end it: it ends here, told as any batch's end.
        if (batch.status === 'awaiting_approval') {
          await repo.markCompleted(batch.id, 'cancelled');
          await recordChange(trx, {
            kind: 'settlement_batch_completed',
            tenantId: batch.tenantId,
            batchId: batch.id,
            status: 'cancelled',
            items: batch.itemCount,
            success: 0,
            failed: batch.itemCount,
            refunded: 0,
            metadata: batch.metadata,
          });
        }
        await recordAudit(createAuditLog(trx), actor, 'settlement_batch.cancelled', batch.id, { stopped });
        return true;
      });
      if (cancelled) await wake(found.id).catch(() => undefined);
      return summary((await batches.findById(found.id))!);
    },

    /**
     * Approves a batch awaiting approval (never its maker's own): in one transaction, under its reservations' accounts'
     * locks and then its row's, it becomes `validating`, its reservations lose their expiry (each is posted by its
     * item's settlement debit when the item's turn comes: handed over, never released and taken again), its workflow's
     * start is written, and the decision is audited and told (`settlement_batch.approved`). The workflow starts after
     * the commit and runs the batch as an unheld one.
     */
    async approve(approver: AuditActor, id: string): Promise<BatchSummary> {
      const found = isUuid(id) ? await batches.findHeld(approver.tenantId, id.toLowerCase()) : undefined;
      requireDecidable(found, approver, 'approve');
      const job = jobs.settlementBatch({ batchId: found!.id, tenantId: approver.tenantId });
      await db.transaction(async (trx) => {
        const { batch, open } = await lockHeld(trx, found!);
        const approval = requireDecidable(batch, approver, 'approve');
        if (open.reduce<Kobo>((sum, reservation) => sum + reservation.open, 0n) !== approval.total)
          throw new ConflictError('this settlement batch expired before it was approved');
        await createReservations(trx).keepWithoutExpiry(open.map((reservation) => reservation.reservationId));
        await createSettlementBatchesRepo(trx).decide(batch!.id, { status: 'approved', userId: approver.id, note: null });
        await createOutboxRepo(trx).enqueue([job]);
        await recordDecision(trx, batch!, approval, 'approved', approver, null);
      });
      starter.kick([job]);
      return summary((await batches.findById(found!.id))!);
    },

    /**
     * Rejects a batch awaiting approval, with an optional note (its maker may withdraw their own so): every item
     * fails with reason "rejected" and what the batch reserved is released, exactly; audited and told
     * (`settlement_batch.rejected`).
     */
    async reject(approver: AuditActor, id: string, note: string | null): Promise<BatchSummary> {
      const found = isUuid(id) ? await batches.findHeld(approver.tenantId, id.toLowerCase()) : undefined;
      requireDecidable(found, approver, 'reject');
      await db.transaction(async (trx) => {
        const { batch, open } = await lockHeld(trx, found!);
        const approval = requireDecidable(batch, approver, 'reject');
        if (open.reduce<Kobo>((sum, reservation) => sum + reservation.open, 0n) !== approval.total)
          throw new ConflictError('this settlement batch expired before it was rejected');
        const repo = createSettlementBatchesRepo(trx);
        await repo.decide(batch!.id, { status: 'rejected', userId: approver.id, note });
        await repo.refuseQueued(batch!.id, 'rejected');
        await releaseHeld(trx, open, 'rejected', { userId: approver.id, note });
        await recordDecision(trx, batch!, approval, 'rejected', approver, note);
      });
      return summary((await batches.findById(found!.id))!);
    },

    /**
     * Marks expired the held batches some of whose reservations the ledger just expired (in its transaction): every
     * item fails with reason "expired"; each batch audited and told (`settlement_batch.expired`) once. The batch's other
     * reservations share its expiry and are expired by the same run. The number marked.
     */
    async expireHeld(trx: Trx, expired: EndedReservations): Promise<number> {
      const holdIds = expired.ended
        .filter((reservation) => reservation.kind === 'batch_approval')
        .map((reservation) => reservation.ownerId);
      const repo = createSettlementBatchesRepo(trx);
      const marked = await repo.expire(await repo.batchIdsOfHolds(holdIds));
      for (const batch of marked) {
        await repo.refuseQueued(batch.id, 'expired');
        const held = (await repo.findHeld(batch.tenantId, batch.id))!;
        await recordDecision(trx, held, held.approval!, 'expired', null, null);
      }
      return marked.length;
    },

    /** The tenant's held batches of one status, newest first, each with the items the dry run flagged. */
    async listHeld(tenantId: string, status: HeldBatchStatus, beforeId: string | null, limit: number): Promise<HeldBatchView[]> {
      return Promise.all((await batches.listHeld(tenantId, status, beforeId, limit)).map(heldView));
    },

    async findHeld(tenantId: string, id: string): Promise<HeldBatchView> {
      const batch = isUuid(id) ? await batches.findHeld(tenantId, id.toLowerCase()) : undefined;
      if (!batch) throw heldBatchNotFound();
      return heldView(batch);
    },
  };
}

export type SettlementBatchesService = ReturnType<typeof createSettlementBatchesService>;
