import { API_KEY_ACTOR, createAuditLog, type AuditAction, type AuditActor } from '../audit/audit-log';
import type { Db, Trx } from '../db';
import { recordChange } from '../events/change-events';
import { ConflictError, NotFoundError } from '../errors';
import { createReservations } from '../ledger/reservations';
import { formatKobo, type Kobo } from '../money';
import { accountHoldsCredits, type FreezeReason, type FreezeSide } from '../policies/account-freeze/account-freeze';
import { findAccountByRef } from './accounts.access';
import type { FreezeBody } from './account-freezes.schemas';

export interface AccountFreeze {
  accountRef: string;
  frozenFor: FreezeSide;
  reason: FreezeReason;
  frozenAt: Date;
  released: Kobo;
}

function audit(
  trx: Trx,
  tenantId: string,
  by: AuditActor | undefined,
  action: AuditAction,
  accountRef: string,
  detail: Record<string, unknown>,
) {
  const log = createAuditLog(trx);
  const target = { type: 'account', id: accountRef };
  return by ? log.record(by, action, target, detail) : log.recordAs(tenantId, API_KEY_ACTOR, action, target, detail);
}

/**
 * Freezes: an account closed to debits, credits or both (see policies/account-freeze), kept on the account's row,
 * which the posting statements read as they lock it. Lifting a freeze for credits (or changing it to debits only)
 * releases the credits it held, in the same transaction as the change, under the account's lock, so no credit
 * lands between the two unjudged. Each change tells the tenant (`account.frozen`, `account.unfrozen`).
 */
export function createAccountFreezesService(deps: { db: Db }) {
  const { db } = deps;

  async function accountIdOf(tenantId: string, accountRef: string): Promise<string> {
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    return account.id;
  }

  /** Releases the credits the freeze held (under the account's lock, taken first); the kobo released. */
  async function releaseHeldCredits(trx: Trx, accountId: string, by: AuditActor | undefined): Promise<Kobo> {
    const reservations = createReservations(trx);
    const held = await reservations.openOfAccount(accountId, 'credit_freeze');
    if (held.length > 0)
      await reservations.release(
        accountId,
        held.map(({ reservationId, open }) => ({
          reservationId,
          kind: 'credit_freeze' as const,
          amount: open,
          reason: 'unfrozen' as const,
          userId: by?.id ?? null,
          note: null,
        })),
      );
    return held.reduce((sum, { open }) => sum + open, 0n);
  }

  return {
    /** Freezes the account (or changes its freeze); audited with who did it and their note. */
    async freeze(tenantId: string, accountRef: string, body: FreezeBody, by?: AuditActor): Promise<AccountFreeze> {
      const accountId = await accountIdOf(tenantId, accountRef);
      return db.transaction(async (trx) => {
        // The customer's and the account's locks first, as every posting takes them.
        const released = accountHoldsCredits(body.frozenFor) ? 0n : await releaseHeldCredits(trx, accountId, by);
        const [row] = (await trx('virtual_accounts')
          .where({ id: accountId })
          .update({ frozen_for: body.frozenFor, frozen_reason: body.reason, frozen_at: trx.fn.now() })
          .returning('frozen_at')) as Array<{ frozen_at: Date }>;
        await recordChange(trx, { kind: 'account_frozen', tenantId, accountRef, frozenFor: body.frozenFor, reason: body.reason });
        await audit(trx, tenantId, by, 'account.frozen', accountRef, {
          frozenFor: body.frozenFor,
          reason: body.reason,
          note: body.note ?? null,
          released: formatKobo(released),
        });
        return { accountRef, frozenFor: body.frozenFor, reason: body.reason, frozenAt: row!.frozen_at, released };
      });
    },

    /** Lifts the account's freeze (409 when it is not frozen), releasing the credits it held; audited. */
    async unfreeze(tenantId: string, accountRef: string, by?: AuditActor): Promise<Kobo> {
      const accountId = await accountIdOf(tenantId, accountRef);
      return db.transaction(async (trx) => {
        const released = await releaseHeldCredits(trx, accountId, by);
        const lifted = await trx('virtual_accounts')
          .where({ id: accountId })
          .whereNotNull('frozen_for')
          .update({ frozen_for: null, frozen_reason: null, frozen_at: null });
        if (lifted === 0) throw new ConflictError('the account is not frozen');
        await recordChange(trx, { kind: 'account_unfrozen', tenantId, accountRef });
        await audit(trx, tenantId, by, 'account.unfrozen', accountRef, { released: formatKobo(released) });
        return released;
      });
    },
  };
}

export type AccountFreezesService = ReturnType<typeof createAccountFreezesService>;
