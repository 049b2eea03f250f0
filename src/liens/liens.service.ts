import { findAccountByRef } from '../accounts/accounts.access';
import { API_KEY_ACTOR, createAuditLog, type AuditAction, type AuditActor } from '../audit/audit-log';
import type { Db, Trx } from '../db';
import type { EventedLedger } from '../events/ledger-events';
import { ConflictError, NotFoundError } from '../errors';
import { isUuid, uuidv7 } from '../ids';
import { openReservationsOf } from '../ledger/ledger-reads';
import type { ReservationReason } from '../ledger/reservation-kinds';
import { createReservations } from '../ledger/reservations';
import { formatKobo, type Kobo } from '../money';
import type { LienBody } from './liens.schemas';

/** A lien still open: what it set aside and what it still holds. */
export interface OpenLien {
  lienId: string;
  amount: Kobo;
  held: Kobo;
  reason: ReservationReason<'lien'>;
  expiresAt: Date | null;
  placedAt: Date;
}

export interface PlacedLien {
  lienId: string;
  accountRef: string;
  amount: Kobo;
  reason: ReservationReason<'lien'>;
  expiresAt: Date | null;
}

/** Records a lien's change in its transaction: by a dashboard user, or by one of the tenant's API keys. */
function audit(
  trx: Trx,
  tenantId: string,
  by: AuditActor | undefined,
  action: AuditAction,
  lienId: string,
  detail: Record<string, unknown>,
) {
  const log = createAuditLog(trx);
  const target = { type: 'lien', id: lienId };
  return by ? log.record(by, action, target, detail) : log.recordAs(tenantId, API_KEY_ACTOR, action, target, detail);
}

/**
 * Liens: money set aside on an account for a claim on it, a `lien` reservation kept for the lien's id, placed and
 * lifted through the evented ledger (which tells `lien.placed` and `lien.lifted`). While it is open the account may
 * spend that much less (the ledger's one definition of what an account may spend); lifting it, or its expiry (the
 * ledger's reservation expiry, telling `lien.expired`), releases it. Placing may reserve more than the account holds:
 * the account then may spend nothing until enough arrives.
 */
export function createLiensService(deps: { db: Db; ledger: Pick<EventedLedger, 'reserve' | 'releaseOwned'> }) {
  const { db, ledger } = deps;

  async function accountIdOf(tenantId: string, accountRef: string): Promise<string> {
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    return account.id;
  }

  return {
    /** The account's liens still open, oldest first. */
    async listOpen(tenantId: string, accountRef: string): Promise<OpenLien[]> {
      const open = await openReservationsOf(db, await accountIdOf(tenantId, accountRef), 'lien');
      return open.map((lien) => ({
        lienId: lien.ownerId,
        amount: lien.amount,
        held: lien.open,
        reason: lien.reason as ReservationReason<'lien'>,
        expiresAt: lien.expiresAt,
        placedAt: lien.createdAt,
      }));
    },

    /** Places a lien on the account; audited with who placed it. */
    async place(tenantId: string, accountRef: string, body: LienBody, by?: AuditActor): Promise<PlacedLien> {
      const accountId = await accountIdOf(tenantId, accountRef);
      const lienId = uuidv7();
      const expiresAt = body.expiresAt ?? null;
      await db.transaction(async (trx) => {
        await ledger.reserve(trx, {
          accountId,
          kind: 'lien',
          reason: body.reason,
          ownerId: lienId,
          amount: body.amount,
          expiresAt,
        });
        await audit(trx, tenantId, by, 'account.lien_placed', lienId, {
          accountRef,
          amount: formatKobo(body.amount),
          reason: body.reason,
          note: body.note ?? null,
          expiresAt: expiresAt?.toISOString() ?? null,
        });
      });
      return { lienId, accountRef, amount: body.amount, reason: body.reason, expiresAt };
    },

    /** Lifts what is still open of a lien (409 when it was lifted or expired already); audited; the kobo released. */
    async lift(tenantId: string, accountRef: string, lienId: string, by?: AuditActor): Promise<Kobo> {
      const accountId = await accountIdOf(tenantId, accountRef);
      if (!isUuid(lienId)) throw new NotFoundError('lien not found');
      return db.transaction(async (trx) => {
        const ownerId = lienId.toLowerCase();
        const lien = await createReservations(trx).ofOwner('lien', ownerId);
        if (!lien || lien.accountId !== accountId) throw new NotFoundError('lien not found');
        if (lien.open === 0n) throw new ConflictError('the lien was lifted or expired already');
        await ledger.releaseOwned(trx, { accountId, kind: 'lien', ownerId, reason: 'lifted', userId: by?.id ?? null, note: null });
        await audit(trx, tenantId, by, 'account.lien_lifted', lienId, { accountRef, released: formatKobo(lien.open) });
        return lien.open;
      });
    },
  };
}

export type LiensService = ReturnType<typeof createLiensService>;
