import type { AccountRecord } from '../accounts/accounts.access';
import type { Trx } from '../db';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo, type OutboxEntry } from '../workflow-starts/outbox.repo';
import type { PostingEngine } from '../ledger/posting-engine';
import { paymentCredit } from '../ledger/postings';
import { queueForConfirmation, type ConfirmationRequest } from '../payment-confirmation/confirmation-queue.access';
import type { LedgerEntry, PostingPlan } from '../ledger/ledger.types';
import type { Kobo } from '../money';
import { createWebhookDeliveries } from '../events/webhook-deliveries';
import { paymentReceivedBody, recordPaymentCredit } from '../events/change-events';
import { paymentJudgementOf } from '../ledger/ledger-reads';

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
export function createPaymentCrediter(deps: { postingEngine: PostingEngine; jobs: Jobs }) {
  const { postingEngine, jobs } = deps;
  return async function creditPayment(
    trx: Trx,
    account: AccountRecord,
    payment: Omit<ReceivedPayment, 'accountRef' | 'tenantId'> & { inboundEventId: string; receivedAt: Date },
  ): Promise<{ entry: LedgerEntry; jobs: OutboxEntry[] }> {
    const plan = planPaymentCredit(jobs, { ...payment, accountRef: account.accountRef, tenantId: account.tenantId });
    const entry = await postingEngine.creditPayment(trx, account.id, plan.posting);
    await queueForConfirmation(trx, [{ ...plan.confirmation, postedAt: entry.createdAt }]);
    // A dynamic account's judgement of the payment, made by the ledger as it posted it, goes in the body too; only a
    // dynamic account (whose policy never changes) has one, so an ordinary account's credit reads nothing more.
    const judgement = account.amountPolicy === null ? undefined : await paymentJudgementOf(trx, entry.id);
    const body = judgement
      ? paymentReceivedBody({
          transactionGroupId: entry.transactionGroupId,
          accountRef: account.accountRef,
          gross: payment.gross,
          fee: payment.fee,
          senderName: payment.senderName,
          narration: payment.narration,
          judgement,
        })
      : plan.delivery.payload;
    await recordPaymentCredit(trx, {
      accountId: account.id,
      entryId: entry.id,
      transactionGroupId: entry.transactionGroupId,
      eventId: plan.eventId,
      holdEventId: plan.limitEventId,
      body,
    });
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
