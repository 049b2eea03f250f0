import type { Config } from '../config';
import type { ChunkResult, CompletionCheck, SettlementBatchEnd } from '../contracts/settlement-batch.contract';
import type { Db, DbOrTrx } from '../db';
import { AppError } from '../errors';
import { recordChange } from '../events/change-events';
import { createReservations } from '../ledger/reservations';
import { settlementStatusCounts } from '../settlements/settlements.access';
import type { AcceptedSettlement } from '../settlements/settle-outcomes';
import type { BeforeDebit, SettlementsService } from '../settlements/settlements.service';
import { isTransientFailure, itemReservationKind, judgeItemFields, settlementBatchItemKey } from './settlement-batch-items';
import { batchCounts } from './settlement-batch-reads';
import { createSettlementBatchesRepo, type BatchItemRecord, type BatchRecord } from './settlement-batches.repo';

/** The item was cancelled while its settlement was being made: that settlement is rolled back. */
class ItemNoLongerQueued extends Error {}

/** The tenant's cap of settlements in flight was full when the item's settlement was made: it is rolled back and the item waits. */
class NoRoomInFlight extends Error {}

/**
 * What a batch's workflow asks of the batch: judge and initiate the next items in order (each an ordinary
 * settlement under a key of the batch and the item's reference), and end the batch once every item is final.
 */
export function createSettlementBatchExecutionService(deps: {
  db: Db;
  config: Pick<Config, 'SETTLEMENT_BATCH_IN_FLIGHT' | 'SETTLEMENT_BATCH_POLL_INTERVAL'>;
  settlements: Pick<SettlementsService, 'initiate' | 'initiateToBeneficiary'>;
}) {
  const { db, config, settlements } = deps;
  const batches = createSettlementBatchesRepo(db);

  /** Settlements of the tenant's open batches still pending or processing. */
  async function inFlight(trx: DbOrTrx, tenantId: string): Promise<number> {
    const counts = await settlementStatusCounts(trx, tenantId, createSettlementBatchesRepo(trx).openSettlementRefsOf(tenantId));
    return (counts.pending ?? 0) + (counts.processing ?? 0);
  }

  /**
   * In the item's settlement transaction: takes the tenant's room lock (held to the commit) and counts again, so
   * concurrent batches of one tenant take turns and never start more than the cap between them.
   */
  async function claimRoom(trx: DbOrTrx, tenantId: string): Promise<void> {
    await createSettlementBatchesRepo(trx).lockTenantRoom(tenantId);
    if ((await inFlight(trx, tenantId)) >= config.SETTLEMENT_BATCH_IN_FLIGHT) throw new NoRoomInFlight();
  }

  /**
   * An approved (or scheduled) batch's item had its amount reserved: its settlement's debit posts that reservation in
   * its own transaction, so it spends the money kept for it (what was reserved is never released and taken again).
   */
  function spendHeld(batch: BatchRecord, item: BatchItemRecord): BeforeDebit | undefined {
    const { holdId } = item;
    if (holdId === null) return undefined;
    return async (trx, debit) => {
      const reservations = createReservations(trx);
      const held = await reservations.ofOwner(itemReservationKind(batch), holdId);
      if (!held || held.open === 0n) return;
      await reservations.post(held.accountId, {
        reservationId: held.reservationId,
        entryId: debit.debitEntryId,
        amount: held.open,
        userId: null,
        note: null,
      });
    };
  }

  /** Fails an item with its refusal, releasing what was reserved for it (exactly what it still holds) in the same transaction. */
  async function refuseItem(batch: BatchRecord, item: BatchItemRecord, reason: string): Promise<void> {
    if (item.holdId === null) return batches.markRefused(batch.id, item.position, reason);
    const holdId = item.holdId;
    const kind = itemReservationKind(batch);
    await db.transaction(async (trx) => {
      const reservations = createReservations(trx);
      for (const held of await reservations.openOfOwners(kind, [holdId]))
        await reservations.release(held.accountId, [
          {
            reservationId: held.reservationId,
            kind,
            amount: held.open,
            reason: 'item_refused',
            userId: null,
            note: reason,
          },
        ]);
      await createSettlementBatchesRepo(trx).markRefused(batch.id, item.position, reason);
    });
  }

  /** Makes the item's settlement, tying the item to it in the settlement's own transaction. */
  async function initiateItem(batch: BatchRecord, item: BatchItemRecord): Promise<string | null> {
    const { amount, bankCode, accountNumber, beneficiaryId, narration } = item;
    const fields = judgeItemFields({ amount, bankCode, accountNumber, beneficiaryId, narration });
    if (!fields.ok) return fields.reason;
    const key = settlementBatchItemKey(batch.id, item.reference);
    const tie = async (trx: DbOrTrx, made: AcceptedSettlement) => {
      await claimRoom(trx, batch.tenantId);
      if (!(await createSettlementBatchesRepo(trx).markInitiated(batch.id, item.position, made.merchantTxRef)))
        throw new ItemNoLongerQueued();
    };
    const request = fields.request;
    // The item's settlement carries the item's metadata (its events and reads too); an item without asks as it always did,
    // so a retry of a settlement made before items carried metadata still matches its request.
    const metadata = Object.keys(item.metadata).length > 0 ? item.metadata : undefined;
    const beforeDebit = spendHeld(batch, item);
    const made =
      request.to === 'beneficiary'
        ? await settlements.initiateToBeneficiary(
            batch.tenantId,
            item.accountRef,
            { amount: request.amount, beneficiaryId: request.beneficiaryId, narration: request.narration, metadata },
            key,
            { onCreated: tie, ...(beforeDebit ? { beforeDebit } : {}) },
          )
        : await settlements.initiate(
            batch.tenantId,
            item.accountRef,
            {
              amount: request.amount,
              bankCode: request.bankCode,
              accountNumber: request.accountNumber,
              narration: request.narration,
              metadata,
            },
            key,
            { onCreated: tie, ...(beforeDebit ? { beforeDebit } : {}) },
          );
    // A retry whose settlement an earlier attempt made answers under the key without onCreated: tie it now.
    await batches.markInitiated(batch.id, item.position, made.merchantTxRef);
    return null;
  }

  return {
    /**
     * Judges and initiates up to `limit` queued items in request order, within the room the tenant's cap of
     * settlements in flight leaves (checked again under a per-tenant lock as each item's settlement is made). An item the settlements service refuses (a 4xx) fails alone with that
     * message; a rate limit or an outage stops the chunk with how long to wait (Retry-After when given).
     */
    async initiateChunk(batchId: string, limit: number, onProgress: () => void = () => undefined): Promise<ChunkResult> {
      const batch = await batches.findById(batchId);
      if (!batch || batch.status === 'cancelled' || batch.completedAt !== null) return { judged: 0, waitMs: 0, stopped: true };
      if (batch.status === 'scheduled') {
        // Not due yet: the run waits out the rest of its time (a cancel wakes it); due, it runs as any batch.
        const untilMs = batch.scheduledFor!.getTime() - Date.now();
        if (untilMs > 0) return { judged: 0, waitMs: untilMs, stopped: false, untilScheduled: true };
        await batches.markStarted(batch.id);
      }
      // Sizes the chunk only: each item's own transaction checks the room again under the tenant's lock.
      const room = config.SETTLEMENT_BATCH_IN_FLIGHT - (await inFlight(db, batch.tenantId));
      const items = room > 0 ? await batches.nextQueued(batch.id, Math.min(limit, room)) : [];
      let judged = 0;
      let waitMs = room > 0 ? 0 : config.SETTLEMENT_BATCH_POLL_INTERVAL;
      for (const item of items) {
        try {
          const refusal = await initiateItem(batch, item);
          if (refusal !== null) await refuseItem(batch, item, refusal);
        } catch (error) {
          if (error instanceof ItemNoLongerQueued) break;
          if (error instanceof NoRoomInFlight) {
            waitMs = config.SETTLEMENT_BATCH_POLL_INTERVAL;
            break;
          }
          if (!(error instanceof AppError)) throw error;
          // The chunk stops and the item is tried again later.
          if (isTransientFailure(error)) {
            waitMs = (error.retryAfterSeconds ?? 0) * 1000 || config.SETTLEMENT_BATCH_POLL_INTERVAL;
            break;
          }
          await refuseItem(batch, item, error.message);
        }
        judged += 1;
        onProgress();
      }
      const { queued } = await batches.unsettledCounts(batch.id);
      if (queued === 0) await batches.markProcessing(batch.id);
      const now = (await batches.findById(batch.id))!;
      return { judged, waitMs, stopped: queued === 0 || now.status === 'cancelled' };
    },

    /**
     * Ends the batch once no item is queued, pending or processing: completed when every settlement
     * succeeded, completed_with_failures when any item failed (or was refunded), cancelled when it was
     * cancelled; with its settlement_batch.completed event, once.
     */
    async completeIfFinal(batchId: string): Promise<CompletionCheck> {
      return db.transaction(async (trx) => {
        const repo = createSettlementBatchesRepo(trx);
        const batch = await repo.lock(batchId);
        if (!batch) return { kind: 'ended', status: 'cancelled' };
        if (batch.completedAt !== null) return { kind: 'ended', status: batch.status as SettlementBatchEnd };
        const counts = await batchCounts(trx, batch);
        const open = counts.queued + counts.pending + counts.processing;
        if (open > 0) return { kind: 'open', open };
        const status: SettlementBatchEnd =
          batch.status === 'cancelled' ? 'cancelled' : counts.failed + counts.refunded > 0 ? 'completed_with_failures' : 'completed';
        await repo.markCompleted(batch.id, status);
        await recordChange(trx, {
          kind: 'settlement_batch_completed',
          tenantId: batch.tenantId,
          batchId: batch.id,
          status,
          items: batch.itemCount,
          success: counts.success,
          failed: counts.failed,
          refunded: counts.refunded,
          metadata: batch.metadata,
        });
        return { kind: 'ended', status };
      });
    },
  };
}

export type SettlementBatchExecutionService = ReturnType<typeof createSettlementBatchExecutionService>;
