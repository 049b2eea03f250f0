import { uuidv7 } from '../ids';
import type { Kobo } from '../money';
import type { FundsSource, PostingPlan } from './ledger.types';
import { planPosting } from './posting-engine';
import { counterPostingsJson } from './posting-ctes';

/**
 * A received payment's provisional net credit: the fee apart, the sender's name as narration. The
 * caller names the entry and its transaction group, since its own rows (the confirmation queue, the
 * callback) refer to them.
 */
export function paymentCredit(payment: { entryId: string; transactionGroupId: string; gross: Kobo; fee: Kobo; senderName: string; transactionId: string }): PostingPlan {
  return planPosting([
    {
      id: payment.entryId,
      direction: 'credit',
      kind: 'payment',
      amount: payment.gross - payment.fee,
      fee: payment.fee,
      status: 'provisional',
      narration: payment.senderName,
      providerTxnRef: payment.transactionId,
      transactionGroupId: payment.transactionGroupId,
    },
  ]);
}

/**
 * A settlement's provisional debit, posted only if the balance `spendFrom` names covers it (under the
 * account's lock). A return of held money to its payer is outside the daily payout limit: neither counted
 * nor refused by it.
 */
export function settlementDebit(settlement: { amount: Kobo; narration: string; merchantTxRef: string; spendFrom: FundsSource; returnToSender?: boolean }): PostingPlan {
  return planPosting(
    [
      {
        direction: 'debit',
        kind: 'settlement',
        amount: settlement.amount,
        status: 'provisional',
        narration: settlement.narration,
        providerTxnRef: settlement.merchantTxRef,
        transactionGroupId: uuidv7(),
      },
    ],
    { spendFrom: settlement.spendFrom, countsTowardDay: !settlement.returnToSender },
  );
}

/** A payment credit as a row of the `credits` relation of the posting engine's creditPaymentsAmong (its `entry` column). */
export function paymentCreditRow(posting: PostingPlan): Record<string, unknown> {
  const [draft] = posting.drafts;
  if (posting.drafts.length !== 1 || draft!.direction !== 'credit' || draft!.status !== 'provisional') {
    throw new Error('a payment posting is one provisional credit');
  }
  return {
    id: draft!.id,
    amount: draft!.amount,
    fee: draft!.fee,
    narration: draft!.narration,
    provider_txn_ref: draft!.providerTxnRef,
    transaction_group_id: draft!.transactionGroupId,
    transaction_id: draft!.transactionId,
    counter_postings: counterPostingsJson(draft!.counterPostings),
  };
}
