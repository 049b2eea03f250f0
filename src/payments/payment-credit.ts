import type { AccountRecord } from '../accounts/accounts.repo';
import type { Trx } from '../db';
import { uuidv7 } from '../ids';
import type { Jobs } from '../jobs/jobs';
import { createOutboxRepo, type OutboxEntry } from '../jobs/outbox.repo';
import type { LedgerEntry } from '../ledger/ledger.types';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Kobo } from '../money';
import { createDeliveriesRepo } from '../webhooks/deliveries.repo';
import { paymentReceivedBody } from '../webhooks/payment-received';

export interface PaymentCredit {
  /** The ledger entry's id when the caller has already referenced it (the inbound event does). */
  entryId?: string;
  account: AccountRecord;
  gross: Kobo;
  fee: Kobo;
  senderName: string;
  narration: string;
  transactionId: string;
  inboundEventId: string;
  receivedAt: Date;
}

/**
 * Posts a received payment in the caller's transaction: the provisional net credit, the outbound
 * delivery when the account has a callbackUrl, and the workflows to start once it commits.
 */
export function createPaymentCrediter(deps: { postingEngine: PostingEngine; jobs: Jobs }) {
  const { postingEngine, jobs } = deps;
  return async function creditPayment(trx: Trx, payment: PaymentCredit): Promise<{ entry: LedgerEntry; jobs: OutboxEntry[] }> {
    const { account } = payment;
    const transactionGroupId = uuidv7();
    const [entry] = await postingEngine.post(trx, account.id, [
      {
        ...(payment.entryId ? { id: payment.entryId } : {}),
        direction: 'credit',
        kind: 'payment',
        amount: payment.gross - payment.fee,
        fee: payment.fee,
        status: 'provisional',
        narration: payment.senderName,
        providerTxnRef: payment.transactionId,
        transactionGroupId,
      },
    ]);
    const scheduled = [
      jobs.paymentConfirmation({ entryId: entry!.id, providerTxnRef: payment.transactionId, gross: payment.gross, tenantId: account.tenantId, accountRef: account.accountRef }),
    ];
    if (account.callbackUrl) {
      const deliveryId = uuidv7();
      await createDeliveriesRepo(trx).insert({
        id: deliveryId,
        eventId: deliveryId,
        tenantId: account.tenantId,
        accountId: account.id,
        inboundEventId: payment.inboundEventId,
        callbackUrl: account.callbackUrl,
        payload: paymentReceivedBody({
          transactionGroupId,
          accountRef: account.accountRef,
          gross: payment.gross,
          fee: payment.fee,
          senderName: payment.senderName,
          narration: payment.narration,
        }),
        eventReceivedAt: payment.receivedAt,
      });
      scheduled.push(jobs.webhookDelivery({ deliveryId, tenantId: account.tenantId, accountRef: account.accountRef }));
    }
    await createOutboxRepo(trx).enqueue(scheduled);
    return { entry: entry!, jobs: scheduled };
  };
}

export type PaymentCrediter = ReturnType<typeof createPaymentCrediter>;
