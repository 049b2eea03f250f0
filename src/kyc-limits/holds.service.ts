import { createAuditLog } from '../audit/audit-log';
import type { EventedLedger } from '../events/ledger-events';
import type { Db, DbOrTrx, Trx } from '../db';
import { AppError, ConflictError, NotFoundError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { isUuid } from '../ids';
import { endedAmount } from '../ledger/ledger-results';
import { RESERVATION_KINDS } from '../ledger/reservation-kinds';
import { formatKobo, type Kobo } from '../money';
import { createHoldsRepo, type HeldCredit } from './holds.repo';
import { namesMatch } from '../payer-returns/payer-name';
import { PayerNameMismatchError, type PayerAccount, type PayerReturns } from '../payer-returns/payer-returns';

/** Where a return would go: the payer the payment names, and the provider's name for that account now. */
export interface ReturnDestination extends PayerAccount {
  held: HeldCredit;
}

/** Why the return may pay the looked-up name: it is the payer's, or an operator confirmed it. */
export type NameCheck = 'matched' | 'operator_confirmed';

export interface ReturnedCredit extends ReturnDestination {
  merchantTxRef: string;
  nameCheck: NameCheck;
}

const payerNameMismatch = (destination: ReturnDestination): PayerNameMismatchError =>
  new PayerNameMismatchError(
    destination,
    "nothing was returned; confirm the provider's name (confirmedAccountName) to return the money to that account",
  );

class ConfirmedNameChangedError extends AppError {
  constructor(destination: ReturnDestination, confirmed: string) {
    super(
      'conflict',
      'account_name_mismatch',
      `the provider now names account ${destination.accountNumber} (bank ${destination.bankCode}) "${destination.accountName}", not "${confirmed}" as confirmed (the payment names its payer "${destination.payerName}"): nothing was returned; look it up again and confirm the name`,
    );
  }
}

const RETURN_NARRATION = 'Return to sender';
const MISMATCH_RETURN_NOTE = "returned by the service: the dynamic account's policy does not accept the payment";

/** Money held over a customer's KYC limits: the operators' queue and their decisions on it. */
export function createHoldsService(deps: {
  db: Db;
  postingEngine: Pick<EventedLedger, 'releaseHold' | 'returnHold'>;
  returns: PayerReturns;
}) {
  const { db, postingEngine, returns } = deps;
  const holds = createHoldsRepo(db);

  /**
   * Why the tenant's credit has no open hold in the queue: returned already, or held by another feature (a freeze,
   * whose lift releases it), is a 409; any other a 404.
   */
  async function notInQueue(repo: ReturnType<typeof createHoldsRepo>, tenantId: string, id: string | undefined): Promise<never> {
    if (id && (await repo.wasReturned(tenantId, id)))
      throw new ConflictError('the held money of this credit was already returned to the sender');
    const kind = id ? await repo.heldOutsideQueue(tenantId, id) : undefined;
    if (kind)
      throw new ConflictError(
        `this credit is held ${RESERVATION_KINDS[kind].heldFor}, which the held-money queue does not release or return`,
      );
    throw new NotFoundError('held credit not found');
  }

  /** An open hold of the tenant's in the queue, or why there is none (see notInQueue). */
  async function openHold(tenantId: string, entryId: string): Promise<HeldCredit> {
    const id = isUuid(entryId) ? entryId.toLowerCase() : undefined;
    const held = id ? await holds.findOpen(tenantId, id) : undefined;
    return held ?? notInQueue(holds, tenantId, id);
  }

  /** The payer's account of a held credit (its bank the operator's choice, when given) and the provider's name for it now. */
  async function destinationOf(tenantId: string, held: HeldCredit, chosenBankCode: string | undefined): Promise<ReturnDestination> {
    if (held.creditStatus !== 'confirmed')
      throw new ConflictError('the credit is not confirmed by the provider yet: it can be returned once it is');
    return { held, ...(await returns.payerAccountOf(tenantId, held.entryId, chosenBankCode)) };
  }

  /**
   * Pays what is held of a tenant's credit to `destination`, as a settlement of the account paying the name looked up. In
   * the settlement's transaction, under the account's lock, the hold is posted by the return just before the debit
   * spends it (the ledger tells the return), and `alongside` (when given) writes the caller's rows beside it;
   * `onCreated` runs once the settlement is made.
   */
  async function payBack(
    tenantId: string,
    destination: ReturnDestination,
    returnedBy: { userId: string | null; note: string },
    hooks: {
      alongside?: (trx: Trx, merchantTxRef: string) => Promise<void>;
      onCreated?: (trx: DbOrTrx, settlement: { merchantTxRef: string }) => Promise<void>;
    },
  ): Promise<string> {
    const { held } = destination;
    return returns.payBack(
      tenantId,
      held.accountRef,
      destination,
      { amount: held.held, narration: RETURN_NARRATION, heldMoney: true },
      {
        beforeDebit: async (trx, debit) => {
          await postingEngine.returnHold(
            trx,
            held.accountId,
            held.entryId,
            { debitEntryId: debit.debitEntryId, amount: held.held, userId: returnedBy.userId, note: returnedBy.note },
            { merchantTxRef: debit.merchantTxRef },
          );
          await hooks.alongside?.(trx, debit.merchantTxRef);
        },
        ...(hooks.onCreated ? { onCreated: hooks.onCreated } : {}),
      },
    );
  }

  return {
    queue(tenantId: string, limit: number): Promise<HeldCredit[]> {
      return holds.listOpen(tenantId, limit);
    },

    /** A dynamic account's payment still held to return; undefined once it is returned or released. */
    async heldMismatch(tenantId: string, entryId: string): Promise<HeldCredit | undefined> {
      const held = await holds.findOpen(tenantId, entryId);
      return held?.limitKind === 'amount_mismatch' ? held : undefined;
    },

    totalHeld(tenantId: string): Promise<Kobo> {
      return holds.totalHeld(tenantId);
    },

    /** An operator's decision to let the customer spend a held credit, with the reason, in the audit log. */
    async release(user: AuthenticatedUser, entryId: string, note: string): Promise<{ held: HeldCredit; released: Kobo }> {
      return db.transaction(async (trx) => {
        const repo = createHoldsRepo(trx);
        const id = isUuid(entryId) ? entryId.toLowerCase() : undefined;
        const held = (id ? await repo.findOpen(user.tenantId, id) : undefined) ?? (await notInQueue(repo, user.tenantId, id));
        const released = endedAmount(await postingEngine.releaseHold(trx, held.accountId, held.entryId, { userId: user.id, note }));
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

    /** Where a return of this credit would go and whose name the provider gives that account, for the operator to check first. */
    async returnDestination(tenantId: string, entryId: string, bankCode: string | undefined): Promise<ReturnDestination> {
      return destinationOf(tenantId, await openHold(tenantId, entryId), bankCode);
    },

    /**
     * Pays what is held of a confirmed credit back to its payer, as a settlement of the account (the settlement
     * workflow and all its rules). The payer's account is looked up at the provider first, and the return goes
     * ahead only when the provider's name for it is the payer's (`namesMatch`), or when the operator confirms
     * the provider's name as it is now; otherwise a 409 naming both, with nothing written. The settlement pays
     * the name looked up. In its transaction, under the account's lock, the hold is posted by the settlement debit
     * that spends it, and the decision goes in the audit log with both names.
     */
    async returnToSender(
      user: AuthenticatedUser,
      entryId: string,
      decision: { note: string; bankCode?: string | undefined; confirmedAccountName?: string | undefined },
    ): Promise<ReturnedCredit> {
      const destination = await destinationOf(user.tenantId, await openHold(user.tenantId, entryId), decision.bankCode);
      const { held, bankCode, accountNumber, accountName, payerName } = destination;
      const confirmed = decision.confirmedAccountName;
      if (confirmed !== undefined && !namesMatch(confirmed, accountName)) throw new ConfirmedNameChangedError(destination, confirmed);
      if (confirmed === undefined && !destination.namesMatch) throw payerNameMismatch(destination);
      const nameCheck: NameCheck = destination.namesMatch ? 'matched' : 'operator_confirmed';
      const merchantTxRef = await payBack(
        user.tenantId,
        destination,
        { userId: user.id, note: decision.note },
        {
          onCreated: (trx, settlement) =>
            createAuditLog(trx).record(
              user,
              'kyc_hold.returned',
              { type: 'account', id: held.accountId },
              {
                accountRef: held.accountRef,
                entryId: held.entryId,
                amount: formatKobo(held.held),
                limitKind: held.limitKind,
                note: decision.note,
                merchantTxRef: settlement.merchantTxRef,
                bankCode,
                accountNumber,
                senderName: payerName,
                accountName,
                nameCheck,
                ...(confirmed !== undefined ? { confirmedAccountName: confirmed } : {}),
              },
            ),
        },
      );
      return { ...destination, merchantTxRef, nameCheck };
    },

    /**
     * The service's own return of a payment a dynamic account held in full to return (its policy does not accept
     * it, or it came after expiry): the same path as an operator's, but it pays only when the provider names the
     * payer's account as the payment names the payer (no one is there to confirm another name). A refusal (the
     * errors of returnToSender) writes nothing: the money stays held for an operator. `alongside` writes the caller's
     * rows in the settlement's transaction, just before the debit (the ledger tells the return).
     */
    async returnHeldMismatch(
      tenantId: string,
      entryId: string,
      alongside: (trx: Trx, returned: { held: HeldCredit; merchantTxRef: string }) => Promise<void>,
    ): Promise<ReturnedCredit> {
      const held = await openHold(tenantId, entryId);
      if (held.limitKind !== 'amount_mismatch') throw new ConflictError('this credit is held over a KYC limit, not to be returned');
      const destination = await destinationOf(tenantId, held, undefined);
      if (!destination.namesMatch) throw payerNameMismatch(destination);
      const merchantTxRef = await payBack(
        tenantId,
        destination,
        { userId: null, note: MISMATCH_RETURN_NOTE },
        { alongside: (trx, merchantTxRef) => alongside(trx, { held, merchantTxRef }) },
      );
      return { ...destination, merchantTxRef, nameCheck: 'matched' };
    },
  };
}

export type HoldsService = ReturnType<typeof createHoldsService>;
