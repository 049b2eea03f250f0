import type { AccountRecord } from '../accounts/accounts.access';
import type { Trx } from '../db';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo, type OutboxEntry } from '../workflow-starts/outbox.repo';
import { paymentCredit } from '../ledger/postings';
import { queueForConfirmation, type ConfirmationRequest } from '../payment-confirmation/confirmation-queue.access';
import type { LedgerEntry, PostingPlan } from '../ledger/ledger.types';
import type { Kobo } from '../money';
import { createWebhookDeliveries } from '../events/webhook-deliveries';
import { paymentReceivedBody } from '../events/change-events';
import type { EventedLedger } from '../events/ledger-events';

interface ReceivedPayment {
  accountRef: string;
  /** Empty when not yet known: the ingest statement finds the account and fills it in. */
  tenantId: string;
  gross: Kobo;
  fee: Kobo;
  senderName: string;
  narration: string;
  transactionId: string;
}

/** Everything a received payment becomes: the credit, its place in the confirmation queue, the callback delivery and its workflow. */
export interface PaymentCreditPlan {
  entryId: string;
  posting: PostingPlan;
  /** Made only when the account has a callbackUrl. */
  delivery: { id: string; payload: string };
  /** Queued for a batch confirmation (confirmation_claims) in the same transaction as the credit. */
  confirmation: ConfirmationRequest;
  /** Started only when the account has a callbackUrl. */
  deliveryJob: OutboxEntry;
  /** The `payment.received` event for the tenant's endpoints (its data is the callback's body). */
  eventId: string;
  /** The `kyc.limit_exceeded` event, recorded only when part of the credit is held. */
  limitEventId: string;
}

/** The provisional net credit (the ledger's payment credit) and what follows it. */
export function planPaymentCredit(jobs: Jobs, payment: ReceivedPayment): PaymentCreditPlan {
  const entryId = uuidv7();
  const deliveryId = uuidv7();
  const transactionGroupId = uuidv7();
  const { accountRef, tenantId } = payment;
  return {
    entryId,
    posting: paymentCredit({
      entryId,
      transactionGroupId,
      gross: payment.gross,
      fee: payment.fee,
      senderName: payment.senderName,
      transactionId: payment.transactionId,
    }),
    delivery: {
      id: deliveryId,
      payload: paymentReceivedBody({
        transactionGroupId,
        accountRef,
        gross: payment.gross,
        fee: payment.fee,
        senderName: payment.senderName,
        narration: payment.narration,
      }),
    },
    confirmation: { entryId, tenantId, accountRef, providerTxnRef: payment.transactionId, postedAt: new Date() },
    deliveryJob: jobs.webhookDelivery({ deliveryId, tenantId, accountRef }),
    eventId: uuidv7(),
    limitEventId: uuidv7(),
  };
}

/**
 * Posts a received payment to a known account in the caller's transaction (misdirected payments
 * assigned by an operator, credits reconciliation found missing) through the ledger; live webhooks do the
 * same in one statement (payment-posting.repo).
 */
export function createPaymentCrediter(deps: { postingEngine: Pick<EventedLedger, 'creditPayment'>; jobs: Jobs }) {
  const { postingEngine, jobs } = deps;
  return async function creditPayment(
    trx: Trx,
    account: AccountRecord,
    payment: Omit<ReceivedPayment, 'accountRef' | 'tenantId'> & { inboundEventId: string; receivedAt: Date },
  ): Promise<{ entry: LedgerEntry; jobs: OutboxEntry[] }> {
    const plan = planPaymentCredit(jobs, { ...payment, accountRef: account.accountRef, tenantId: account.tenantId });
    // The ledger's events layer records its payment.received (a dynamic account's with the ledger's judgement of it)
    // and its kyc.limit_exceeded; the callback carries the same body.
    const { entry, body } = await postingEngine.creditPayment(
      trx,
      { id: account.id, accountRef: account.accountRef, dynamic: account.amountPolicy !== null },
      plan.posting,
      {
        eventId: plan.eventId,
        limitEventId: plan.limitEventId,
        received: { gross: payment.gross, fee: payment.fee, senderName: payment.senderName, narration: payment.narration },
      },
    );
    await queueForConfirmation(trx, [{ ...plan.confirmation, postedAt: entry.createdAt }]);
    const scheduled: OutboxEntry[] = [];
    if (account.callbackUrl) {
      await createWebhookDeliveries(trx).enqueue({
        id: plan.delivery.id,
        eventId: plan.delivery.id,
        tenantId: account.tenantId,
        accountId: account.id,
        inboundEventId: payment.inboundEventId,
        callbackUrl: account.callbackUrl,
        payload: body,
        eventReceivedAt: payment.receivedAt,
      });
      scheduled.push(plan.deliveryJob);
    }
    await createOutboxRepo(trx).enqueue(scheduled);
    return { entry, jobs: scheduled };
  };
}

export type PaymentCrediter = ReturnType<typeof createPaymentCrediter>;
