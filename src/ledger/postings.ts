import { uuidv7 } from '../ids';
import type { Kobo } from '../money';
import type { EntryDraft, FundsSource, NewPosting, PostingPlan, SystemPosting } from './ledger.types';
import { counterColumnsJson } from './posting-ctes';

/**
 * The system side of a payment credit or a settlement debit, which their kind decides: a payment's gross
 * arrived at the provider (clearing), which kept its fee; a settlement's amount is on its way out.
 */
function counterPostingsOf(posting: NewPosting): SystemPosting[] {
  if (posting.kind === 'payment' && posting.direction === 'credit') {
    const fee = posting.fee ?? 0n;
    const fromClearing: SystemPosting = { account: 'clearing', amount: -(posting.amount + fee) };
    return fee > 0n ? [fromClearing, { account: 'provider_fees', amount: fee }] : [fromClearing];
  }
  if (posting.kind === 'settlement' && posting.direction === 'debit') {
    // Its money is in transit until its payout leaves (settlementPaid), which confirms it.
    if (posting.status !== 'provisional') throw new Error('a settlement debit posts provisional');
    return [{ account: 'payouts_in_transit', amount: posting.amount }];
  }
  throw new Error(`a ${posting.kind} ${posting.direction} names its counter postings`);
}

/** The entries to append and what they do to the account's totals: the rules every posting path shares. */
export function planPosting(
  postings: NewPosting[],
  options: { spendFrom?: FundsSource; countsTowardDay?: boolean; pendingReleased?: Kobo; heldReleased?: Kobo } = {},
): PostingPlan {
  const drafts: EntryDraft[] = postings.map((posting) => ({
    id: posting.id ?? uuidv7(),
    direction: posting.direction,
    kind: posting.kind,
    amount: posting.amount,
    fee: posting.fee ?? 0n,
    status: posting.status,
    narration: posting.narration,
    providerTxnRef: posting.providerTxnRef,
    transactionGroupId: posting.transactionGroupId,
    transactionId: posting.transactionId ?? uuidv7(),
    reversesEntryId: posting.reversesEntryId ?? null,
    counterPostings: posting.counterPostings ?? counterPostingsOf(posting),
  }));
  if (drafts.some((draft) => draft.amount <= 0n)) throw new Error('a posting amount must be positive');
  return {
    drafts,
    totals: {
      pendingReleased: options.pendingReleased ?? 0n,
      heldReleased: options.heldReleased ?? 0n,
      requireFunds: options.spendFrom ? { from: options.spendFrom, countsTowardDay: options.countsTowardDay ?? true } : null,
    },
  };
}

/**
 * A received payment's provisional net credit: the fee apart, the sender's name as narration. The
 * caller names the entry and its transaction group, since its own rows (the confirmation queue, the
 * callback) refer to them.
 */
export function paymentCredit(payment: {
  entryId: string;
  transactionGroupId: string;
  gross: Kobo;
  fee: Kobo;
  senderName: string;
  transactionId: string;
}): PostingPlan {
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
export function settlementDebit(settlement: {
  amount: Kobo;
  narration: string;
  merchantTxRef: string;
  spendFrom: FundsSource;
  returnToSender?: boolean;
}): PostingPlan {
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

/**
 * A credit the payment credits' statement judges, as a row of the `credits` relation of the posting engine's
 * creditPaymentsAmong (its `entry` column), ready for JSON: a received payment's provisional credit, or the
 * confirmed restoration of a reversed one (an adjustment answering the reversal), which is judged like a new payment.
 */
export function paymentCreditRow(posting: PostingPlan): Record<string, unknown> {
  const [draft] = posting.drafts;
  const received = draft?.kind === 'payment' && draft.status === 'provisional';
  const restored = draft?.kind === 'adjustment' && draft.status === 'confirmed' && draft.reversesEntryId !== null;
  if (posting.drafts.length !== 1 || draft!.direction !== 'credit' || !(received || restored)) {
    throw new Error('a judged credit is one provisional payment credit or one confirmed restoration');
  }
  return {
    id: draft!.id,
    kind: draft!.kind,
    status: draft!.status,
    amount: draft!.amount.toString(),
    fee: draft!.fee.toString(),
    narration: draft!.narration,
    provider_txn_ref: draft!.providerTxnRef,
    transaction_group_id: draft!.transactionGroupId,
    transaction_id: draft!.transactionId,
    reverses_entry_id: draft!.reversesEntryId,
    ...counterColumnsJson(draft!.counterPostings),
  };
}

/**
 * A transfer's two entries, one balanced transaction with no system posting: the debit of the sending account
 * and the credit of the receiving one, confirmed as they post (the money never leaves the provider's wallet).
 */
export function transferEntries(transfer: {
  fromAccountId: string;
  toAccountId: string;
  amount: Kobo;
  narration: string;
  reference: string;
  /** The debit's id, when the caller names it first (a reservation posted by the debit, earlier in the transaction). */
  debitEntryId?: string;
}): Array<{ accountId: string; draft: EntryDraft }> {
  if (transfer.amount <= 0n) throw new Error('a transfer amount must be positive');
  const transactionId = uuidv7();
  const entry = (direction: EntryDraft['direction']): EntryDraft => ({
    id: (direction === 'debit' ? transfer.debitEntryId : undefined) ?? uuidv7(),
    direction,
    kind: 'transfer',
    amount: transfer.amount,
    fee: 0n,
    status: 'confirmed',
    narration: transfer.narration,
    providerTxnRef: transfer.reference,
    transactionGroupId: transactionId,
    transactionId,
    reversesEntryId: null,
    counterPostings: [],
  });
  return [
    { accountId: transfer.fromAccountId, draft: entry('debit') },
    { accountId: transfer.toAccountId, draft: entry('credit') },
  ];
}
