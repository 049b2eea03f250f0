import { API_KEY_ACTOR, createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db, Trx } from '../db';
import { AppError, ConflictError, NotFoundError } from '../errors';
import { recordChange } from '../events/change-events';
import type { EndedReservations } from '../ledger/ledger-results';
import { createReservations } from '../ledger/reservations';
import { formatKobo } from '../money';
import { createPayoutApprovalsRepo, type PayoutApprovalRecord, type PayoutApprovalStatus } from './payout-approvals.repo';
import { SWEEP_ACTOR } from './payout-maker';
import type { AcceptedSettlement } from './settle-outcomes';
import type { SettlementsService } from './settlements.service';

/** The audit log's actor for a held payout nobody decided in time. */
const EXPIRY_ACTOR = 'approval expiry';

/** Decisions on the payouts the approval policy holds: approve, reject, expire, and reading them. */
export function createPayoutApprovalsService(deps: { db: Db; settlements: Pick<SettlementsService, 'settleApproved'> }) {
  const { db, settlements } = deps;

  /** Records a user's decision on a held payout (locked): its row, its audit entry and its event. */
  async function recordDecision(
    trx: Trx,
    by: AuditActor,
    held: PayoutApprovalRecord,
    decision: 'approved' | 'rejected',
    note: string | null,
  ): Promise<void> {
    await createPayoutApprovalsRepo(trx).decide(held.id, { status: decision, userId: by.id, note });
    await createAuditLog(trx).record(
      by,
      decision === 'approved' ? 'settlement.approved' : 'settlement.rejected',
      { type: 'settlement', id: held.merchantTxRef },
      {
        accountRef: held.accountRef,
        amount: formatKobo(held.amount),
        maker: held.makerEmail ?? (held.makerApiKeyId !== null ? `${API_KEY_ACTOR} ${held.makerApiKeyId}` : SWEEP_ACTOR),
        note,
      },
    );
    await recordChange(trx, {
      kind: 'payout_approval_decided',
      tenantId: held.tenantId,
      decision,
      merchantTxRef: held.merchantTxRef,
      accountRef: held.accountRef,
      amount: held.amount,
      decidedBy: by.email,
      note,
    });
  }

  /**
   * A held payout a user may decide now, read again under its row's lock by a decision: still awaiting approval, not
   * past its expiry, and (to approve) not made by this user.
   */
  function requireDecidable(held: PayoutApprovalRecord | undefined, by: AuditActor, decision: 'approve' | 'reject'): PayoutApprovalRecord {
    if (!held) throw new NotFoundError('payout awaiting approval not found');
    if (held.status !== 'awaiting_approval') throw new ConflictError(`this payout is ${held.status}, no longer awaiting approval`);
    if (held.expiresAt.getTime() <= Date.now()) throw new ConflictError('this payout expired before it was approved');
    if (decision === 'approve' && held.makerUserId === by.id)
      throw new AppError('forbidden', 'maker_cannot_approve', 'the maker of a payout cannot approve it: another user must');
    return held;
  }

  return {
    /**
     * Approves a payout waiting for approval: it becomes the settlement it asked for, under its own merchantTxRef, as an
     * unapproved one would be made (one workflow, one transfer at the provider). In the settlement's transaction, under
     * the approval's row lock: still awaiting, not expired, not the approver's own; its reservation is posted by the
     * settlement's debit (so the debit spends the money it kept); the decision is recorded, audited and told
     * (`settlement.approved`, then the ledger's `settlement.created`). A refusal of the debit (the customer suspended,
     * the daily payout limit) leaves it waiting.
     */
    async approve(approver: AuditActor, merchantTxRef: string): Promise<AcceptedSettlement> {
      const { tenantId } = approver;
      const held = requireDecidable(await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef), approver, 'approve');
      const request = {
        amount: held.amount,
        bankCode: held.bankCode,
        accountNumber: held.accountNumber,
        narration: held.narration,
        metadata: held.metadata,
      };
      return settlements.settleApproved(tenantId, held.accountRef, request, {
        merchantTxRef,
        ...(held.accountName !== null ? { accountName: held.accountName } : {}),
        ...(held.beneficiaryId !== null ? { beneficiaryId: held.beneficiaryId } : {}),
        beforeDebit: async (trx, debit) => {
          // The account's lock first (ofOwner takes it), then the approval's row: the order an expiry takes them in.
          const reservations = createReservations(trx);
          const reservation = await reservations.ofOwner('payout_approval', held.id);
          const locked = requireDecidable(await createPayoutApprovalsRepo(trx).lockByRef(tenantId, merchantTxRef), approver, 'approve');
          if (!reservation || reservation.open !== locked.amount) throw new ConflictError('this payout expired before it was approved');
          await reservations.post(reservation.accountId, {
            reservationId: reservation.reservationId,
            entryId: debit.debitEntryId,
            amount: locked.amount,
            userId: approver.id,
            note: null,
          });
          await recordDecision(trx, approver, locked, 'approved', null);
        },
      });
    },

    /** Rejects a payout waiting for approval: its reservation is released, exactly its amount; audited and told (`settlement.rejected`). */
    async reject(approver: AuditActor, merchantTxRef: string, note: string | null): Promise<AcceptedSettlement> {
      const { tenantId } = approver;
      const { id } = requireDecidable(await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef), approver, 'reject');
      return db.transaction(async (trx) => {
        // The account's lock first (ofOwner takes it), then the approval's row: the order an expiry takes them in.
        const reservations = createReservations(trx);
        const reservation = await reservations.ofOwner('payout_approval', id);
        const held = requireDecidable(await createPayoutApprovalsRepo(trx).lockByRef(tenantId, merchantTxRef), approver, 'reject');
        if (!reservation || reservation.open !== held.amount) throw new ConflictError('this payout expired before it was rejected');
        await reservations.release(reservation.accountId, [
          {
            reservationId: reservation.reservationId,
            kind: 'payout_approval',
            amount: held.amount,
            reason: 'rejected',
            userId: approver.id,
            note,
          },
        ]);
        await recordDecision(trx, approver, held, 'rejected', note);
        return {
          merchantTxRef,
          status: 'rejected' as const,
          amount: held.amount,
          currency: 'NGN' as const,
          accountRef: held.accountRef,
          metadata: held.metadata,
        };
      });
    },

    /**
     * Marks expired the held payouts whose reservations the ledger just expired (in its transaction), each audited and
     * told (`settlement.expired`); the number marked.
     */
    async expireHeld(trx: Trx, expired: EndedReservations): Promise<number> {
      const ids = expired.ended.filter((reservation) => reservation.kind === 'payout_approval').map((reservation) => reservation.ownerId);
      const marked = await createPayoutApprovalsRepo(trx).expire(ids);
      for (const held of marked) {
        await createAuditLog(trx).recordAs(
          held.tenantId,
          EXPIRY_ACTOR,
          'settlement.expired',
          { type: 'settlement', id: held.merchantTxRef },
          {
            accountRef: held.accountRef,
            amount: formatKobo(held.amount),
          },
        );
        await recordChange(trx, {
          kind: 'payout_approval_decided',
          tenantId: held.tenantId,
          decision: 'expired',
          merchantTxRef: held.merchantTxRef,
          accountRef: held.accountRef,
          amount: held.amount,
          decidedBy: null,
          note: null,
        });
      }
      return marked.length;
    },

    /** The tenant's held payouts of one status, newest first. */
    listHeld(tenantId: string, status: PayoutApprovalStatus, beforeId: string | null, limit: number): Promise<PayoutApprovalRecord[]> {
      return createPayoutApprovalsRepo(db).list(tenantId, status, beforeId, limit);
    },

    async findHeld(tenantId: string, merchantTxRef: string): Promise<PayoutApprovalRecord> {
      const held = await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef);
      if (!held) throw new NotFoundError('payout awaiting approval not found');
      return held;
    },
  };
}

export type PayoutApprovalsService = ReturnType<typeof createPayoutApprovalsService>;
