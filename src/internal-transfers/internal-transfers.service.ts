import { findAccountById, findAccountByRef, type AccountRecord } from '../accounts/accounts.access';
import type { Config } from '../config';
import { requireTenantCustomer } from '../customers/customers.access';
import type { Db, Trx } from '../db';
import { BadRequestError, invalidAmount, NotFoundError } from '../errors';
import { invalidCursor } from '../http/pagination';
import { createIdempotencyRepo } from '../idempotency/idempotency.repo';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import { isUuid, uuidv7 } from '../ids';
import type { EventedLedger } from '../events/ledger-events';
import type { Kobo } from '../money';
import { customerMayMoveMoney } from '../policies/customer-standing/customer-standing';
import {
  createInternalTransfersRepo,
  type InternalTransferRecord,
  type NewInternalTransfer,
  type TransferSource,
} from './internal-transfers.repo';

export interface TransferRequest {
  toAccountRef: string;
  amount: Kobo;
  narration?: string | undefined;
}

/** Who asked for a transfer: an API key, or a dashboard user (kept on the transfer and in the audit log). */
export type TransferInitiator =
  { source: Extract<TransferSource, 'api'> } | { source: Extract<TransferSource, 'dashboard'>; userId: string };

/** Runs inside the transaction that made the transfer, only when it made one (never on a replay). */
type OnCreated = (trx: Trx, transfer: InternalTransferRecord) => Promise<void>;

/** Rolls a transfer back when its Idempotency-Key was claimed meanwhile by a concurrent request: the caller answers as a replay. */
class KeyTaken extends Error {}

const accountNotFound = () => new NotFoundError('account not found');

/** The account's customer must be active (a suspended customer's money does not move); said of the account. */
async function requireActiveCustomer(db: Db | Trx, tenantId: string, account: AccountRecord): Promise<void> {
  const customer = await requireTenantCustomer(db, tenantId, account.customerId);
  if (!customerMayMoveMoney(customer.status))
    throw new BadRequestError('customer_suspended', `the customer of account ${account.accountRef} is suspended`);
}

/** Money can move only between live accounts of active customers; said of whichever side is not. */
async function requireOpen(db: Db | Trx, tenantId: string, account: AccountRecord): Promise<void> {
  if (account.status !== 'active') throw new BadRequestError('account_expired', `account ${account.accountRef} is expired`);
  await requireActiveCustomer(db, tenantId, account);
}

/**
 * Transfers between two accounts of one tenant. The key's claim, the ledger's posting (a debit and a credit of
 * one transaction, under both customers' and both accounts' locks), the transfer row and its `transfer.completed`
 * event are one database transaction: nothing is half-written, and a retry under the same key answers the first
 * transfer.
 */
export function createInternalTransfersService(deps: {
  db: Db;
  config: Pick<Config, 'MAX_AMOUNT' | 'REQUEST_HASH_SECRET'>;
  postingEngine: Pick<EventedLedger, 'transfer'>;
}) {
  const { db, config, postingEngine } = deps;
  const transfers = createInternalTransfersRepo(db);

  /** What the request hash covers: the whole request, its source account included. */
  const hashed = (fromAccountRef: string, request: TransferRequest) => ({
    fromAccountRef,
    toAccountRef: request.toAccountRef,
    amount: request.amount,
    narration: request.narration ?? '',
  });

  /** The first transfer made under the key, when this is a retry of its request; 409 when the key was used for another. */
  async function replayed(tenantId: string, fromAccountRef: string, request: TransferRequest, key: string) {
    const claimed = await createIdempotencyRepo(db).find(tenantId, 'transfer', key);
    if (!claimed) return undefined;
    if (!sameRequest(claimed.request_hash, config.REQUEST_HASH_SECRET, hashed(fromAccountRef, request))) throw idempotencyMismatch();
    const transfer = await transfers.find(tenantId, claimed.resource_ref);
    if (!transfer) throw new Error(`idempotency key ${key} names transfer ${claimed.resource_ref}, which does not exist`);
    return transfer;
  }

  /**
   * The ledger's posting (refused before anything is written when the account cannot pay), the transfer's row and
   * its `transfer.completed` event, in the caller's transaction; `underLocks` runs once the ledger holds both
   * accounts' locks.
   */
  async function move(
    trx: Trx,
    transfer: Omit<NewInternalTransfer, 'transactionId' | 'debitEntryId' | 'creditEntryId'>,
    underLocks?: () => Promise<void>,
  ): Promise<InternalTransferRecord> {
    const posted = await postingEngine.transfer(trx, {
      fromAccountId: transfer.fromAccountId,
      toAccountId: transfer.toAccountId,
      amount: transfer.amount,
      narration: transfer.narration,
      reference: transfer.id,
    });
    await underLocks?.();
    const made = await createInternalTransfersRepo(trx).insert({
      ...transfer,
      transactionId: posted.transactionId,
      debitEntryId: posted.debit.id,
      creditEntryId: posted.credit.id,
    });
    return made;
  }

  async function requireAccount(tenantId: string, accountRef: string): Promise<AccountRecord> {
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw accountNotFound();
    return account;
  }

  return {
    async transfer(
      tenantId: string,
      fromAccountRef: string,
      request: TransferRequest,
      idempotencyKey: string,
      initiator: TransferInitiator,
      onCreated?: OnCreated,
    ): Promise<InternalTransferRecord> {
      const earlier = await replayed(tenantId, fromAccountRef, request, idempotencyKey);
      if (earlier) return earlier;
      if (request.amount > config.MAX_AMOUNT) throw invalidAmount();
      const from = await requireAccount(tenantId, fromAccountRef);
      const to = await requireAccount(tenantId, request.toAccountRef);
      if (from.id === to.id) throw new BadRequestError('same_account', 'cannot transfer to the same account');
      await requireOpen(db, tenantId, from);
      await requireOpen(db, tenantId, to);
      const id = uuidv7();
      const narration = request.narration ?? '';
      const hash = requestHash(config.REQUEST_HASH_SECRET, hashed(fromAccountRef, request));
      try {
        return await db.transaction(async (trx) => {
          // A concurrent request under the same key waits here for the first to commit or roll back.
          const claim = await createIdempotencyRepo(trx).claim({
            tenant_id: tenantId,
            scope: 'transfer',
            key: idempotencyKey,
            request_hash: hash,
            resource_ref: id,
          });
          if (!claim.claimed) throw new KeyTaken();
          const made = await move(
            trx,
            {
              id,
              tenantId,
              fromAccountId: from.id,
              toAccountId: to.id,
              amount: request.amount,
              narration,
              idempotencyKey,
              requestHash: hash,
              source: initiator.source,
              createdBy: initiator.source === 'dashboard' ? initiator.userId : null,
              splitOfPayment: null,
            },
            // Both customers' and both accounts' rows are locked now: a suspension or an expiry since the check above waits
            // for this transaction, or has committed and is seen here.
            async () => {
              for (const account of [from, to]) await requireOpen(trx, tenantId, (await findAccountById(trx, account.id))!);
            },
          );
          await createIdempotencyRepo(trx).attachResource(tenantId, 'transfer', idempotencyKey, id);
          await onCreated?.(trx, made);
          return made;
        });
      } catch (error) {
        if (!(error instanceof KeyTaken)) throw error;
        const first = await replayed(tenantId, fromAccountRef, request, idempotencyKey);
        if (!first) throw new Error(`idempotency key ${idempotencyKey} was taken and then released`);
        return first;
      }
    },

    /**
     * A split rule's part of a confirmed payment, inside the confirmation's transaction (see split-rules), which
     * holds both accounts' locks: no key, since the split's own record makes it once. Refused as any transfer
     * (a suspended customer on either side, an expired receiving account, insufficient funds, the daily payout
     * limit), before anything is written. The sending account may have just closed: the payment that completes a
     * checkout (or dynamic) account closes it in the statement that confirms it, and is split all the same.
     */
    async moveSplitPart(
      trx: Trx,
      part: { tenantId: string; fromAccountId: string; toAccountId: string; amount: Kobo; paymentReference: string },
    ): Promise<InternalTransferRecord> {
      await requireActiveCustomer(trx, part.tenantId, (await findAccountById(trx, part.fromAccountId))!);
      await requireOpen(trx, part.tenantId, (await findAccountById(trx, part.toAccountId))!);
      return move(trx, {
        id: uuidv7(),
        tenantId: part.tenantId,
        fromAccountId: part.fromAccountId,
        toAccountId: part.toAccountId,
        amount: part.amount,
        narration: `split of payment ${part.paymentReference}`,
        idempotencyKey: null,
        requestHash: null,
        source: 'split',
        createdBy: null,
        splitOfPayment: part.paymentReference,
      });
    },

    /** The ledger entries each of these transfers posted (its debit and its credit), read in the caller's transaction. */
    entriesOf(trx: Trx, ids: string[]): Promise<Map<string, { debitEntryId: string; creditEntryId: string }>> {
      return createInternalTransfersRepo(trx).entriesOf(ids);
    },

    /** Unknown, another tenant's and malformed ids all read as "transfer not found". */
    async find(tenantId: string, id: string): Promise<InternalTransferRecord> {
      const transfer = isUuid(id) ? await transfers.find(tenantId, id.toLowerCase()) : undefined;
      if (!transfer) throw new NotFoundError('transfer not found');
      return transfer;
    },

    /** The account's transfers, both directions, newest first; `after` is the previous page's last id. */
    async listOfAccount(tenantId: string, accountRef: string, after: string | undefined, limit: number): Promise<InternalTransferRecord[]> {
      const account = await requireAccount(tenantId, accountRef);
      if (after !== undefined && !isUuid(after)) throw invalidCursor();
      const cursor = after?.toLowerCase() ?? null;
      if (cursor !== null) {
        const last = await transfers.find(tenantId, cursor);
        if (!last || (last.fromAccountRef !== account.accountRef && last.toAccountRef !== account.accountRef)) throw invalidCursor();
      }
      return transfers.listOfAccount(account.id, cursor, limit);
    },
  };
}

export type InternalTransfersService = ReturnType<typeof createInternalTransfersService>;
