import { createAuditLog } from '../audit/audit-log';
import type { Db } from '../db';
import { ConflictError, NotFoundError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { isUuid } from '../ids';
import type { PostingEngine } from '../ledger/posting-engine';
import { formatKobo, type Kobo } from '../money';
import { createHoldsRepo, type HeldCredit } from './holds.repo';

/** Money held over a customer's KYC limits: the operators' queue and their decisions on it. */
export function createHoldsService(deps: { db: Db; postingEngine: PostingEngine }) {
  const { db, postingEngine } = deps;
  const holds = createHoldsRepo(db);

  return {
    queue(tenantId: string, limit: number): Promise<HeldCredit[]> {
      return holds.listOpen(tenantId, limit);
    },

    totalHeld(tenantId: string): Promise<Kobo> {
      return holds.totalHeld(tenantId);
    },

    /** An operator's decision to let the customer spend a held credit, with the reason, in the audit log. */
    async release(user: AuthenticatedUser, entryId: string, note: string): Promise<{ held: HeldCredit; released: Kobo }> {
      return db.transaction(async (trx) => {
        const held = isUuid(entryId) ? await createHoldsRepo(trx).findOpen(user.tenantId, entryId.toLowerCase()) : undefined;
        if (!held) throw new NotFoundError('held credit not found');
        const released = await postingEngine.releaseHold(trx, held.accountId, held.entryId, { userId: user.id, note });
        if (released === 0n) throw new ConflictError('nothing of this credit is held any more');
        await createAuditLog(trx).record(
          user,
          'kyc_hold.released',
          { type: 'account', id: held.accountId },
          { accountRef: held.accountRef, entryId: held.entryId, amount: formatKobo(released), limitKind: held.limitKind, note },
        );
        return { held, released };
      });
    },
  };
}

export type HoldsService = ReturnType<typeof createHoldsService>;
