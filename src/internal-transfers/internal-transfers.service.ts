import { findAccountById, findAccountByRef, type AccountRecord } from '../accounts/accounts.access';
import { approvalPolicyOf } from '../approval-policies/approval-policies.access';
import { API_KEY_ACTOR, createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Config } from '../config';
import { requireTenantCustomer } from '../customers/customers.access';
import type { Db, Trx } from '../db';
import { recordChange } from '../events/change-events';
import type { EndedReservations } from '../ledger/ledger-results';
import { TRANSFER_FUNDS } from '../ledger/posting-engine';
import { createReservations } from '../ledger/reservations';
import { AccountFrozenError, AppError, BadRequestError, ConflictError, invalidAmount, NotFoundError } from '../errors';
import { accountMayPayOut, frozenRefusal } from '../policies/account-freeze/account-freeze';
import { transferApproval } from '../policies/payout-approval/transfer-and-sweep-approval';
import { formatKobo } from '../money';
import type { Metadata } from '../http/metadata';
import { invalidCursor } from '../http/pagination';
import { createIdempotencyRepo } from '../idempotency/idempotency.repo';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import { isUuid, uuidv7 } from '../ids';
import type { EventedLedger } from '../events/ledger-events';
import type { Kobo } from '../money';
import {
  createTransferApprovalsRepo,
  type TransferApprovalRecord,
  type TransferApprovalStatus,
  type TransferMade,
} from './transfer-approvals.repo';
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
  metadata?: Metadata | undefined;
}

/** Who asked for a transfer: an API key, or a dashboard user (kept on the transfer and in the audit log). */
export type TransferInitiator =
  { source: Extract<TransferSource, 'api'> } | { source: Extract<TransferSource, 'dashboard'>; userId: string };

/**
 * Runs inside the transaction that made the transfer, or held it for approval, only when it did (never on a replay):
 * the caller's audit entry.
 */
type OnCreated = (trx: Trx, transfer: TransferMade) => Promise<void>;

/** The audit log's actor for a held transfer nobody decided in time. */
const EXPIRY_ACTOR = 'approval expiry';

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

/** What the audit log keeps of a decision on a held transfer. */
function decisionAuditDetail(held: TransferApprovalRecord, note: string | null) {
  return {
    fromAccountRef: held.fromAccountRef,
    toAccountRef: held.toAccountRef,
    amount: formatKobo(held.amount),
    maker: held.makerEmail ?? (held.source === 'api' ? API_KEY_ACTOR : null),
    note,
  };
}

/**
 * Transfers between two accounts of one tenant. The key's claim, the ledger's posting (a debit and a credit of
 * one transaction, under both customers' and both accounts' locks), the transfer row and its `transfer.completed`
 * event are one database transaction: nothing is half-written, and a retry under the same key answers the first
 * transfer. Under the tenant's approval policy a transfer above its amount is held instead (its money reserved, nothing
 * posted) until another user approves it (it moves then), rejects it, or it expires.
 */
export function createInternalTransfersService(deps: {
  db: Db;
  config: Pick<Config, 'MAX_AMOUNT' | 'REQUEST_HASH_SECRET'>;
  postingEngine: Pick<EventedLedger, 'transfer' | 'insufficientFunds' | 'lockAccounts'>;
}) {
  const { db, config, postingEngine } = deps;
  const transfers = createInternalTransfersRepo(db);
  const approvals = createTransferApprovalsRepo(db);

  /** What the request hash covers: the whole request, its source account included. */
  const hashed = (fromAccountRef: string, request: TransferRequest) => ({
    fromAccountRef,
    toAccountRef: request.toAccountRef,
    amount: request.amount,
    narration: request.narration ?? '',
    metadata: request.metadata,
  });

  /** The first transfer made under the key, when this is a retry of its request; 409 when the key was used for another. */
  async function replayed(tenantId: string, fromAccountRef: string, request: TransferRequest, key: string) {
    const claimed = await createIdempotencyRepo(db).find(tenantId, 'transfer', key);
    if (!claimed) return undefined;
    if (!sameRequest(claimed.request_hash, config.REQUEST_HASH_SECRET, hashed(fromAccountRef, request))) throw idempotencyMismatch();
    const transfer = (await transfers.find(tenantId, claimed.resource_ref)) ?? (await approvals.find(tenantId, claimed.resource_ref));
    if (!transfer) throw new Error(`idempotency key ${key} names transfer ${claimed.resource_ref}, which does not exist`);
    return transfer;
  }

  /**
   * Holds a transfer for approval: in one transaction, claims the Idempotency-Key, reserves its amount on the sending
   * account (a `transfer_approval` reservation, only if the account may spend it now, as the transfer's debit would
   * judge it: confirmed money, both customers active, the sender not frozen for debits) until its expiry, and records
   * the approval, its `transfer.awaiting_approval` and the caller's `onCreated`. Nothing is posted.
   */
  async function hold(
    held: {
      id: string;
      tenantId: string;
      from: AccountRecord;
      to: AccountRecord;
      amount: Kobo;
      narration: string;
      metadata: Metadata;
      hash: string;
    },
    idempotencyKey: string,
    initiator: TransferInitiator,
    expiresAfterSeconds: number,
    onCreated: OnCreated | undefined,
  ): Promise<TransferApprovalRecord> {
    const { id, tenantId, from, to, amount, narration, metadata, hash } = held;
    const expiresAt = new Date(Date.now() + expiresAfterSeconds * 1000);
    return db.transaction(async (trx) => {
      const claim = await createIdempotencyRepo(trx).claim({
        tenant_id: tenantId,
        scope: 'transfer',
        key: idempotencyKey,
        request_hash: hash,
        resource_ref: id,
      });
      if (!claim.claimed) throw new KeyTaken();
      // Both accounts' locks first, in the order a transfer takes them; the reservation's own lock is then held already.
      await postingEngine.lockAccounts(trx, [from.id, to.id]);
      for (const account of [from, to]) await requireOpen(trx, tenantId, (await findAccountById(trx, account.id))!);
      const freeze = (await findAccountById(trx, from.id))!.freeze;
      if (freeze && !accountMayPayOut(freeze.frozenFor)) throw new AccountFrozenError(frozenRefusal(from.accountRef, freeze));
      const reserved = await createReservations(trx).reserveSpendable(
        { accountId: from.id, kind: 'transfer_approval', reason: 'awaiting_approval', ownerId: id, amount, expiresAt },
        TRANSFER_FUNDS,
      );
      if (reserved === undefined) throw await postingEngine.insufficientFunds(trx, from.id, TRANSFER_FUNDS);
      const approval = await createTransferApprovalsRepo(trx).insert({
        id,
        tenantId,
        fromAccountId: from.id,
        toAccountId: to.id,
        amount,
        narration,
        metadata,
        idempotencyKey,
        requestHash: hash,
        source: initiator.source,
        makerUserId: initiator.source === 'dashboard' ? initiator.userId : null,
        expiresAt,
      });
      await createIdempotencyRepo(trx).attachResource(tenantId, 'transfer', idempotencyKey, id);
      await onCreated?.(trx, approval);
      await recordChange(trx, {
        kind: 'transfer_awaiting_approval',
        tenantId,
        transferId: id,
        fromAccountRef: from.accountRef,
        toAccountRef: to.accountRef,
        amount,
        expiresAt,
      });
      return approval;
    });
  }

  /**
   * A held transfer a user may decide now, read again under its row's lock by a decision: still awaiting approval,
   * not past its expiry, and (to approve) not made by this user.
   */
  function requireDecidable(
    held: TransferApprovalRecord | undefined,
    by: AuditActor,
    decision: 'approve' | 'reject',
  ): TransferApprovalRecord {
    if (!held) throw new NotFoundError('transfer awaiting approval not found');
    if (held.status !== 'awaiting_approval') throw new ConflictError(`this transfer is ${held.status}, no longer awaiting approval`);
    if (held.expiresAt.getTime() <= Date.now()) throw new ConflictError(`this transfer expired before it was ${decision}d`);
    if (decision === 'approve' && held.makerUserId === by.id)
      throw new AppError('forbidden', 'maker_cannot_approve', 'the maker of a transfer cannot approve it: another user must');
    return held;
  }

  /** Records a decision on a held transfer (locked): its row, its audit entry and its event. */
  async function recordDecision(
    trx: Trx,
    by: AuditActor,
    held: TransferApprovalRecord,
    decision: 'approved' | 'rejected',
    note: string | null,
  ): Promise<void> {
    await createTransferApprovalsRepo(trx).decide(held.id, { status: decision, userId: by.id, note });
    await createAuditLog(trx).record(by, `transfer.${decision}`, { type: 'transfer', id: held.id }, decisionAuditDetail(held, note));
    await recordChange(trx, {
      kind: 'transfer_approval_decided',
      tenantId: held.tenantId,
      decision,
      transferId: held.id,
      fromAccountRef: held.fromAccountRef,
      toAccountRef: held.toAccountRef,
      amount: held.amount,
      decidedBy: by.email,
      note,
    });
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
    debitEntryId?: string,
  ): Promise<InternalTransferRecord> {
    const posted = await postingEngine.transfer(
      trx,
      {
        fromAccountId: transfer.fromAccountId,
        toAccountId: transfer.toAccountId,
        amount: transfer.amount,
        narration: transfer.narration,
        reference: transfer.id,
        ...(debitEntryId ? { debitEntryId } : {}),
      },
      transfer.metadata,
    );
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
    ): Promise<TransferMade> {
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
      const decision = transferApproval(await approvalPolicyOf(db, tenantId), { amount: request.amount });
      try {
        if (decision.required)
          return await hold(
            { id, tenantId, from, to, amount: request.amount, narration, metadata: request.metadata ?? {}, hash },
            idempotencyKey,
            initiator,
            decision.expiresAfterSeconds,
            onCreated,
          );
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
              metadata: request.metadata ?? {},
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
        metadata: {},
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

    /**
     * A transfer, or one held for approval that did not become one (awaiting approval, rejected, expired). Unknown,
     * another tenant's and malformed ids all read as "transfer not found".
     */
    async find(tenantId: string, id: string): Promise<TransferMade> {
      const transfer = isUuid(id) ? await transfers.find(tenantId, id.toLowerCase()) : undefined;
      if (transfer) return transfer;
      const held = isUuid(id) ? await approvals.find(tenantId, id.toLowerCase()) : undefined;
      if (!held || held.status === 'approved') throw new NotFoundError('transfer not found');
      return held;
    },

    /**
     * Approves a transfer waiting for approval: it moves now, as an unapproved one would (one ledger transaction, its
     * `transfer.completed`), under its own id. In one transaction, with both accounts locked and then the approval's
     * row: still awaiting, not expired, not the approver's own; its reservation is posted by the transfer's debit (so
     * the debit spends the money kept for it and nothing else could spend it meanwhile); the decision is recorded,
     * audited and told (`transfer.approved`). A refusal of the transfer (a suspended customer, an expired account, a
     * debit freeze, the daily payout limit) leaves it waiting.
     */
    async approve(approver: AuditActor, id: string): Promise<InternalTransferRecord> {
      const { tenantId } = approver;
      const found = requireDecidable(isUuid(id) ? await approvals.find(tenantId, id.toLowerCase()) : undefined, approver, 'approve');
      return db.transaction(async (trx) => {
        await postingEngine.lockAccounts(trx, [found.fromAccountId, found.toAccountId]);
        const reservations = createReservations(trx);
        const reservation = await reservations.ofOwner('transfer_approval', found.id);
        const held = requireDecidable(await createTransferApprovalsRepo(trx).lock(tenantId, found.id), approver, 'approve');
        if (!reservation || reservation.open !== held.amount) throw new ConflictError('this transfer expired before it was approved');
        const debitEntryId = uuidv7();
        await reservations.post(reservation.accountId, {
          reservationId: reservation.reservationId,
          entryId: debitEntryId,
          amount: held.amount,
          userId: approver.id,
          note: null,
        });
        await recordDecision(trx, approver, held, 'approved', null);
        const from = (await findAccountById(trx, held.fromAccountId))!;
        const to = (await findAccountById(trx, held.toAccountId))!;
        return move(
          trx,
          {
            id: held.id,
            tenantId,
            fromAccountId: held.fromAccountId,
            toAccountId: held.toAccountId,
            amount: held.amount,
            narration: held.narration,
            metadata: held.metadata,
            idempotencyKey: held.idempotencyKey,
            requestHash: held.requestHash,
            source: held.source,
            createdBy: held.makerUserId,
            splitOfPayment: null,
          },
          async () => {
            for (const account of [from, to]) await requireOpen(trx, tenantId, account);
          },
          debitEntryId,
        );
      });
    },

    /** Rejects a transfer waiting for approval: its reservation is released, exactly its amount; audited and told (`transfer.rejected`). */
    async reject(approver: AuditActor, id: string, note: string | null): Promise<TransferApprovalRecord> {
      const { tenantId } = approver;
      const found = requireDecidable(isUuid(id) ? await approvals.find(tenantId, id.toLowerCase()) : undefined, approver, 'reject');
      return db.transaction(async (trx) => {
        // The account's lock first (ofOwner takes it), then the approval's row: the order an expiry takes them in.
        const reservations = createReservations(trx);
        const reservation = await reservations.ofOwner('transfer_approval', found.id);
        const held = requireDecidable(await createTransferApprovalsRepo(trx).lock(tenantId, found.id), approver, 'reject');
        if (!reservation || reservation.open !== held.amount) throw new ConflictError('this transfer expired before it was rejected');
        await reservations.release(reservation.accountId, [
          {
            reservationId: reservation.reservationId,
            kind: 'transfer_approval',
            amount: held.amount,
            reason: 'rejected',
            userId: approver.id,
            note,
          },
        ]);
        await recordDecision(trx, approver, held, 'rejected', note);
        return {
          ...held,
          status: 'rejected' as const,
          decidedBy: approver.id,
          decidedByEmail: approver.email,
          decidedAt: new Date(),
          decisionNote: note,
        };
      });
    },

    /**
     * Marks expired the held transfers whose reservations the ledger just expired (in its transaction), each audited
     * and told (`transfer.expired`); the number marked.
     */
    async expireHeld(trx: Trx, expired: EndedReservations): Promise<number> {
      const ids = expired.ended.filter((reservation) => reservation.kind === 'transfer_approval').map((reservation) => reservation.ownerId);
      const marked = await createTransferApprovalsRepo(trx).expire(ids);
      for (const held of marked) {
        await createAuditLog(trx).recordAs(
          held.tenantId,
          EXPIRY_ACTOR,
          'transfer.expired',
          { type: 'transfer', id: held.id },
          decisionAuditDetail(held, null),
        );
        await recordChange(trx, {
          kind: 'transfer_approval_decided',
          tenantId: held.tenantId,
          decision: 'expired',
          transferId: held.id,
          fromAccountRef: held.fromAccountRef,
          toAccountRef: held.toAccountRef,
          amount: held.amount,
          decidedBy: null,
          note: null,
        });
      }
      return marked.length;
    },

    /** The tenant's held transfers of one status, newest first. */
    listHeld(tenantId: string, status: TransferApprovalStatus, beforeId: string | null, limit: number): Promise<TransferApprovalRecord[]> {
      return approvals.list(tenantId, status, beforeId, limit);
    },

    async findHeld(tenantId: string, id: string): Promise<TransferApprovalRecord> {
      const held = isUuid(id) ? await approvals.find(tenantId, id.toLowerCase()) : undefined;
      if (!held) throw new NotFoundError('transfer awaiting approval not found');
      return held;
    },

    /** The account's transfers, both directions, newest first; `after` is the previous page's last id. */
    async listOfAccount(
      tenantId: string,
      accountRef: string,
      after: string | undefined,
      limit: number,
      metadata?: Metadata,
    ): Promise<InternalTransferRecord[]> {
      const account = await requireAccount(tenantId, accountRef);
      if (after !== undefined && !isUuid(after)) throw invalidCursor();
      const cursor = after?.toLowerCase() ?? null;
      if (cursor !== null) {
        const last = await transfers.find(tenantId, cursor);
        if (!last || (last.fromAccountRef !== account.accountRef && last.toAccountRef !== account.accountRef)) throw invalidCursor();
      }
      return transfers.listOfAccount(account.id, cursor, limit, metadata);
    },

    /** Up to `limit` of the tenant's transfers, newest first; with `metadata`, only those carrying every pair of it. */
    list(tenantId: string, after: string | undefined, limit: number, metadata?: Metadata): Promise<InternalTransferRecord[]> {
      if (after !== undefined && !isUuid(after)) throw invalidCursor();
      return transfers.list(tenantId, after?.toLowerCase() ?? null, limit, metadata);
    },
  };
}

export type InternalTransfersService = ReturnType<typeof createInternalTransfersService>;
