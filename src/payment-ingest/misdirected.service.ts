import { findAccountById, findAccountByRef, type AccountRecord } from '../accounts/accounts.access';
import { createAuditLog } from '../audit/audit-log';
import type { Db } from '../db';
import { isDuplicatePaymentCredit } from '../ledger/ledger-constraints';
import { ConflictError, NotFoundError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { isUuid } from '../ids';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createInboundEventsRepo, type InboundEventRecord } from './inbound-events.repo';
import type { PaymentCrediter } from './payment-credit';

export interface MisdirectedPayment extends InboundEventRecord {
  assignedAccountRef: string | null;
}

interface Assignment {
  eventId: string;
  entryId: string;
  accountRef: string;
}

/**
 * Payments with a valid signature that matched no account, attributed to a tenant by the prefix in
 * the reference the payer used. An operator of that tenant posts one to the right account, once.
 */
export function createMisdirectedService(deps: { db: Db; creditPayment: PaymentCrediter; starter: WorkflowStarter }) {
  const { db, creditPayment, starter } = deps;

  async function refsOf(accountIds: string[]): Promise<Map<string, string>> {
    const found = await Promise.all([...new Set(accountIds)].map((id) => findAccountById(db, id)));
    return new Map(
      found.filter((account): account is AccountRecord => account !== undefined).map((account) => [account.id, account.accountRef]),
    );
  }

  return {
    /** Newest first; `beforeId` is the previous page's last id. */
    async list(tenantId: string, beforeId: string | null, limit: number): Promise<MisdirectedPayment[]> {
      const events = await createInboundEventsRepo(db).listMisdirected(tenantId, beforeId, limit + 1);
      const refs = await refsOf(events.flatMap((event) => (event.assignedAccountId ? [event.assignedAccountId] : [])));
      return events.map((event) => ({
        ...event,
        assignedAccountRef: event.assignedAccountId ? (refs.get(event.assignedAccountId) ?? null) : null,
      }));
    },

    /**
     * Credits the payment exactly as ingestion would have (provisional credit, callback, confirmation)
     * and marks the event assigned, in one transaction under the event's row lock. The ledger's unique
     * provider transaction reference stops a payment that was meanwhile credited another way.
     */
    async assign(user: AuthenticatedUser, id: string, accountRef: string): Promise<Assignment> {
      if (!isUuid(id)) throw new NotFoundError('misdirected payment not found');
      try {
        const assigned = await db.transaction(async (trx) => {
          const events = createInboundEventsRepo(trx);
          const event = await events.findMisdirectedForUpdate(user.tenantId, id.toLowerCase());
          if (!event) throw new NotFoundError('misdirected payment not found');
          if (event.assignedAt) throw new ConflictError('misdirected payment already assigned');
          const account = await findAccountByRef(trx, user.tenantId, accountRef);
          if (!account) throw new NotFoundError('account not found');
          const { grossAmount: gross, fee, transactionId } = event;
          if (gross === null || fee === null || fee < 0n || fee >= gross || !transactionId) {
            throw new ConflictError('misdirected payment has no creditable amount or transaction id');
          }
          if (event.currency !== null && event.currency !== 'NGN') throw new ConflictError('misdirected payment is not in NGN');
          const credit = await creditPayment(trx, account, {
            gross,
            fee,
            senderName: event.senderName ?? '',
            narration: event.narration ?? '',
            transactionId,
            inboundEventId: event.id,
            receivedAt: event.receivedAt,
          });
          await events.markAssigned(event.id, { accountId: account.id, entryId: credit.entry.id, userId: user.id });
          await createAuditLog(trx).record(
            user,
            'misdirected.assigned',
            { type: 'misdirected_payment', id: event.id },
            { accountRef: account.accountRef, entryId: credit.entry.id },
          );
          return { assignment: { eventId: event.id, entryId: credit.entry.id, accountRef: account.accountRef }, jobs: credit.jobs };
        });
        starter.kick(assigned.jobs);
        return assigned.assignment;
      } catch (error) {
        if (isDuplicatePaymentCredit(error)) throw new ConflictError('transaction already credited');
        throw error;
      }
    },
  };
}

export type MisdirectedService = ReturnType<typeof createMisdirectedService>;
