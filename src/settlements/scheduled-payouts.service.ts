import { API_KEY_ACTOR, createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db, Trx } from '../db';
import { AppError, ConflictError, NotFoundError } from '../errors';
import { recordChange } from '../events/change-events';
import type { Metadata } from '../http/metadata';
import { createReservations } from '../ledger/reservations';
import type { ScheduledPayoutEnd } from '../contracts/scheduled-payout.contract';
import { formatKobo } from '../money';
import { createScheduledPayoutsRepo, type ScheduledPayoutRecord } from './scheduled-payouts.repo';
import type { SettlementsService } from './settlements.service';

/** Who cancels a scheduled payout: a dashboard user (audited as them), or a call with one of the tenant's API keys. */
export type CancelActor = AuditActor | { tenantId: string };

/** The payout was no longer scheduled when its start locked it (cancelled, or started by an earlier attempt): nothing made. */
class NoLongerScheduled extends Error {
  constructor(readonly state: 'started' | 'cancelled' | 'refused') {
    super(`scheduled payout is ${state}`);
  }
}

/** A refusal that may pass (a rate limit, an outage) is tried again by the activity's retry; any other 4xx ends the payout. */
const mayPass = (error: AppError): boolean => ['rate_limited', 'provider_unavailable', 'unavailable'].includes(error.kind);

/** Why a payout that is not (or no longer) scheduled cannot be cancelled. */
function notCancellable(payout: ScheduledPayoutRecord): ConflictError {
  if (payout.state === 'refused')
    return new ConflictError(`this payout was refused at its time (${payout.refusal ?? ''}): there is nothing to cancel`);
  return new ConflictError(
    `this payout started at ${payout.endedAt?.toISOString() ?? payout.scheduledFor.toISOString()} and can no longer be cancelled`,
  );
}

/**
 * Payouts on a date after they are scheduled (settlements' settle schedules them, see payout-holds): making one its
 * settlement when its time comes, cancelling one before then, and reading them. Start and cancel each flip the payout's
 * row from `scheduled` under its lock (taken after its account's, as every reservation change takes them), so one of
 * them wins and the other finds it decided.
 */
export function createScheduledPayoutsService(deps: {
  db: Db;
  settlements: Pick<SettlementsService, 'settleApproved' | 'findTransfer'>;
  /** Wakes the payout's workflow after a cancel, best effort (its start finds the cancel anyway). */
  wake: (merchantTxRef: string) => Promise<void>;
}) {
  const { db, settlements, wake } = deps;
  const payouts = createScheduledPayoutsRepo(db);

  /** Releases what the payout still holds and ends it as cancelled or refused, with its audit entry and `settlement.cancelled`. */
  async function endUnpaid(
    trx: Trx,
    payout: ScheduledPayoutRecord,
    end: { reason: 'cancelled'; by: CancelActor } | { reason: 'refused'; refusal: string },
  ): Promise<void> {
    const reservations = createReservations(trx);
    const reservation = await reservations.ofOwner('scheduled_payout', payout.id);
    if (reservation && reservation.open > 0n)
      await reservations.release(reservation.accountId, [
        {
          reservationId: reservation.reservationId,
          kind: 'scheduled_payout',
          amount: reservation.open,
          reason: end.reason,
          userId: end.reason === 'cancelled' && 'email' in end.by ? end.by.id : null,
          note: end.reason === 'refused' ? end.refusal : null,
        },
      ]);
    const repo = createScheduledPayoutsRepo(trx);
    await repo.end(payout.id, end.reason === 'cancelled' ? { state: 'cancelled' } : { state: 'refused', refusal: end.refusal });
    if (end.reason === 'cancelled') {
      const target = { type: 'settlement', id: payout.merchantTxRef };
      const detail = { accountRef: payout.accountRef, amount: formatKobo(payout.amount), scheduledFor: payout.scheduledFor.toISOString() };
      if ('email' in end.by) await createAuditLog(trx).record(end.by, 'settlement.cancelled', target, detail);
      else await createAuditLog(trx).recordAs(payout.tenantId, API_KEY_ACTOR, 'settlement.cancelled', target, detail);
    }
    await recordChange(trx, {
      kind: 'payout_schedule_ended',
      tenantId: payout.tenantId,
      merchantTxRef: payout.merchantTxRef,
      accountRef: payout.accountRef,
      amount: payout.amount,
      scheduledFor: payout.scheduledFor,
      reason: end.reason === 'cancelled' ? 'cancelled' : end.refusal,
    });
  }

  return {
    /**
     * Makes a payout whose time came its settlement, under its own merchantTxRef, as an approved payout is made (one
     * settlement workflow, one transfer at the provider): in the settlement's transaction the payout's row flips from
     * scheduled to started under its lock and its reservation is posted by the settlement's debit. A cancel that won
     * the lock leaves nothing made. A settlement the debit refuses now (the account frozen, the customer suspended,
     * the daily payout limit) ends the payout `refused`, its money released.
     */
    async start(tenantId: string, merchantTxRef: string): Promise<ScheduledPayoutEnd> {
      const payout = await payouts.findByRef(tenantId, merchantTxRef);
      if (!payout) throw new Error(`no scheduled payout ${merchantTxRef}`);
      if (payout.state !== 'scheduled') return payout.state;
      const request = {
        amount: payout.amount,
        bankCode: payout.bankCode,
        accountNumber: payout.accountNumber,
        narration: payout.narration,
        metadata: payout.metadata,
      };
      try {
        await settlements.settleApproved(tenantId, payout.accountRef, request, {
          merchantTxRef,
          ...(payout.accountName !== null ? { accountName: payout.accountName } : {}),
          ...(payout.beneficiaryId !== null ? { beneficiaryId: payout.beneficiaryId } : {}),
          beforeDebit: async (trx, debit) => {
            // The account's lock first (ofOwner takes it), then the payout's row: the order a cancel takes them in.
            const reservations = createReservations(trx);
            const reservation = await reservations.ofOwner('scheduled_payout', payout.id);
            const locked = await createScheduledPayoutsRepo(trx).lockByRef(tenantId, merchantTxRef);
            if (!locked) throw new NoLongerScheduled('cancelled');
            if (locked.state !== 'scheduled') throw new NoLongerScheduled(locked.state);
            if (!reservation || reservation.open !== locked.amount)
              throw new Error(`scheduled payout ${merchantTxRef} lost its reservation`);
            await reservations.post(reservation.accountId, {
              reservationId: reservation.reservationId,
              entryId: debit.debitEntryId,
              amount: locked.amount,
              userId: null,
              note: null,
            });
            await createScheduledPayoutsRepo(trx).end(locked.id, { state: 'started' });
          },
        });
        return 'started';
      } catch (error) {
        if (error instanceof NoLongerScheduled) return error.state;
        if (!(error instanceof AppError) || mayPass(error)) throw error;
        const refusal = error.message;
        return db.transaction(async (trx) => {
          await createReservations(trx).ofOwner('scheduled_payout', payout.id);
          const locked = await createScheduledPayoutsRepo(trx).lockByRef(tenantId, merchantTxRef);
          if (!locked) return 'cancelled' as const;
          if (locked.state !== 'scheduled') return locked.state;
          await endUnpaid(trx, locked, { reason: 'refused', refusal });
          return 'refused' as const;
        });
      }
    },

    /**
     * Cancels a payout still scheduled: its reservation is released (reason `cancelled`), audited and told
     * (`settlement.cancelled`), and its workflow woken to end. Cancelling a cancelled one answers it again; one that
     * started (or was refused at its time) is a 409, and so is a transfer never scheduled.
     */
    async cancel(actor: CancelActor, merchantTxRef: string): Promise<ScheduledPayoutRecord> {
      const { tenantId } = actor;
      const found = await payouts.findByRef(tenantId, merchantTxRef);
      if (!found) {
        // Answers 404 `transfer not found` when there is no transfer of the reference either.
        await settlements.findTransfer(tenantId, merchantTxRef);
        throw new ConflictError('this transfer was not scheduled: only a payout scheduled for later can be cancelled, before it starts');
      }
      if (found.state === 'cancelled') return found;
      if (found.state !== 'scheduled') throw notCancellable(found);
      const cancelled = await db.transaction(async (trx) => {
        // The account's lock first (ofOwner takes it), then the payout's row: the order its start takes them in.
        await createReservations(trx).ofOwner('scheduled_payout', found.id);
        const locked = await createScheduledPayoutsRepo(trx).lockByRef(tenantId, merchantTxRef);
        if (!locked) throw new NotFoundError('scheduled payout not found');
        if (locked.state === 'cancelled') return false;
        if (locked.state !== 'scheduled') throw notCancellable(locked);
        await endUnpaid(trx, locked, { reason: 'cancelled', by: actor });
        return true;
      });
      if (cancelled) await wake(merchantTxRef).catch(() => undefined);
      return (await payouts.findByRef(tenantId, merchantTxRef))!;
    },

    /** The payout scheduled under this reference, whatever became of it; undefined if none was. */
    find(tenantId: string, merchantTxRef: string): Promise<ScheduledPayoutRecord | undefined> {
      return payouts.findByRef(tenantId, merchantTxRef);
    },

    /** One more than `limit` of the tenant's payouts still scheduled, soonest first; with `metadata`, only those carrying every pair. */
    list(tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<ScheduledPayoutRecord[]> {
      return payouts.listScheduled(tenantId, afterId, limit + 1, metadata);
    },
  };
}

export type ScheduledPayoutsService = ReturnType<typeof createScheduledPayoutsService>;
