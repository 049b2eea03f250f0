import { formatKobo, type Kobo } from '../../money';

/** A payment's credit, and what was paid back of it, as a refund of it is judged. */
export interface RefundFacts {
  status: 'provisional' | 'confirmed' | 'reversed';
  /** A compensating debit took the confirmed credit back. */
  takenBack: boolean;
  /** What the payment credited to the account (net of the provider's fee). */
  credited: Kobo;
  /** What reservations still hold of the credit: it goes back to the payer through the held-money queue, not a refund. */
  held: Kobo;
  /** What of the credit's held money a return to the payer already paid back. */
  returnedHeld: Kobo;
  /** The payment's refunds that have not failed (pending, processing or paid). */
  refunded: Kobo;
}

export type RefundRefusalCode = 'payment_not_confirmed' | 'payment_reversed' | 'refund_exceeds_payment' | 'nothing_to_refund';

export type RefundDecision = { action: 'refund'; amount: Kobo } | { action: 'refuse'; code: RefundRefusalCode; message: string };

/**
 * What of the payment may still be refunded: what it credited, less what is held of it (returned, if at all, by the
 * held-money queue), what that queue returned already and the refunds that have not failed. Never below zero.
 */
export function refundableOf(facts: RefundFacts): Kobo {
  const left = facts.credited - facts.held - facts.returnedHeld - facts.refunded;
  return left > 0n ? left : 0n;
}

/**
 * A refund of `asked` (undefined: all that may still be refunded) of a payment: refused while the payment is
 * provisional, once it is reversed or taken back, when nothing is left, or when `asked` is more than is left.
 */
export function refundDecision(facts: RefundFacts, asked: Kobo | undefined): RefundDecision {
  if (facts.status === 'provisional')
    return {
      action: 'refuse',
      code: 'payment_not_confirmed',
      message: 'the payment is not confirmed by the provider yet: it can be refunded once it is',
    };
  if (facts.status === 'reversed' || facts.takenBack)
    return {
      action: 'refuse',
      code: 'payment_reversed',
      message: 'the payment was reversed (the provider does not show it paid): there is nothing to refund',
    };
  const refundable = refundableOf(facts);
  const accounted = `it credited ${formatKobo(facts.credited)}, refunds not failed ${formatKobo(facts.refunded)}, held ${formatKobo(facts.held)}, returned from held ${formatKobo(facts.returnedHeld)}`;
  if (refundable === 0n)
    return { action: 'refuse', code: 'nothing_to_refund', message: `nothing of the payment is left to refund (${accounted})` };
  const amount = asked ?? refundable;
  if (amount > refundable)
    return {
      action: 'refuse',
      code: 'refund_exceeds_payment',
      message: `a refund of ${formatKobo(amount)} is more than the payment has left to refund: ${formatKobo(refundable)} (${accounted})`,
    };
  return { action: 'refund', amount };
}
