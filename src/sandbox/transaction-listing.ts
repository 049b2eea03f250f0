import { formatKobo, koboToProviderNumber, type Kobo } from '../money';
import { paymentStatusAt } from './sandbox-payments';
import { SandboxHttpError } from './sandbox-http';
import type { SandboxPayment, SandboxState, SandboxTransfer } from './sandbox.state';

/**
 * The provider's transaction listings over the sandbox's records: oldest first, filtered by creation
 * time, paged by an opaque cursor naming the last transaction returned (so transactions arriving while
 * a caller pages never shift a page). The wallet listing writes amounts as JSON numbers and the
 * virtual-account listing as decimal text, as the provider's two listings do.
 */

type Listed =
  { at: number; payment: SandboxPayment; transfer?: undefined } | { at: number; transfer: SandboxTransfer; payment?: undefined };

interface ListingQuery {
  fromMs: number;
  toMs: number;
  limit: number;
  cursor: string | undefined;
  /** Only the credits of this virtual account (its accountRef at the sandbox). */
  accountRef?: string;
}

interface CursorPosition {
  id: string;
  at: number;
}

function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decodeCursor(cursor: string): CursorPosition {
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPosition>;
    if (typeof position.id === 'string' && typeof position.at === 'number') return { id: position.id, at: position.at };
  } catch {
    // falls through to the refusal
  }
  throw new SandboxHttpError(400, '400', 'invalid cursor');
}

const idOf = (item: Listed): string => (item.payment ? item.payment.transactionId : item.transfer.id);

/**
 * Payments and transfers merged by creation time. Each map iterates in insertion order, which is
 * creation order, so a linear merge keeps every request's order the same without sorting.
 */
function chronological(state: SandboxState, accountRef: string | undefined): Listed[] {
  const payments: Listed[] = [];
  for (const payment of state.payments.values()) {
    if (accountRef === undefined || payment.accountRef === accountRef) payments.push({ at: Date.parse(payment.createdAt), payment });
  }
  if (accountRef !== undefined) return payments;
  const transfers: Listed[] = [...state.transfers.values()].map((transfer) => ({ at: Date.parse(transfer.createdAt), transfer }));
  const merged: Listed[] = [];
  let p = 0;
  let t = 0;
  while (p < payments.length || t < transfers.length) {
    const takePayment = t >= transfers.length || (p < payments.length && payments[p]!.at <= transfers[t]!.at);
    merged.push(takePayment ? payments[p++]! : transfers[t++]!);
  }
  return merged;
}

/** A page of the listing and the cursor of the next one ('' on the last page, as the provider answers). */
export function listTransactions(state: SandboxState, query: ListingQuery): { items: Listed[]; cursor: string } {
  const all = chronological(state, query.accountRef);
  let start = 0;
  if (query.cursor) {
    const position = decodeCursor(query.cursor);
    const found = all.findIndex((item) => idOf(item) === position.id);
    start = found >= 0 ? found + 1 : all.findIndex((item) => item.at > position.at);
    if (start < 0) start = all.length;
  }
  const items: Listed[] = [];
  let index = start;
  for (; index < all.length && items.length < query.limit; index += 1) {
    const item = all[index]!;
    if (item.at >= query.fromMs && item.at <= query.toMs) items.push(item);
  }
  const more = all.slice(index).some((item) => item.at >= query.fromMs && item.at <= query.toMs);
  const last = items[items.length - 1];
  return { items, cursor: more && last ? encodeCursor({ id: idOf(last), at: last.at }) : '' };
}

type AmountStyle = 'number' | 'text';

function amount(kobo: Kobo, style: AmountStyle): number | string {
  return style === 'number' ? koboToProviderNumber(kobo) : formatKobo(kobo);
}

/**
 * A listing row, in the provider's field names. A payment still processing is listed as PROCESSING (lookup lag is the single lookup's
 * alone).
 */
export function listingWire(state: SandboxState, item: Listed, style: AmountStyle) {
  if (item.payment) {
    const { payment } = item;
    const account = state.accounts.get(payment.accountRef);
    return {
      id: payment.transactionId,
      status: paymentStatusAt(payment, Date.now()),
      amount: amount(payment.amountKobo, style),
      fixedCharge: amount(payment.feeKobo, style),
      source: 'api',
      type: 'vact_transfer',
      entryType: 'CREDIT',
      currency: 'NGN',
      timeCreated: payment.createdAt,
      timeUpdated: payment.updatedAt ?? payment.createdAt,
      recipientAccountNumber: account?.bankAccountNumber ?? null,
      recipientAccountName: account?.accountName ?? null,
      recipientAccountType: 'VIRTUAL',
      senderName: payment.senderName,
      narration: payment.narration,
    };
  }
  const { transfer } = item;
  return {
    id: transfer.id,
    status: transfer.status,
    amount: amount(transfer.amountKobo, style),
    fixedCharge: amount(transfer.feeKobo, style),
    source: 'api',
    type: 'transfer',
    entryType: 'DEBIT',
    currency: 'NGN',
    timeCreated: transfer.createdAt,
    timeUpdated: transfer.updatedAt,
    merchantTxRef: transfer.merchantTxRef,
    recipientAccountNumber: transfer.accountNumber,
    recipientAccountName: transfer.accountName,
    bankCode: transfer.bankCode,
    senderName: transfer.senderName,
    narration: transfer.narration,
  };
}
