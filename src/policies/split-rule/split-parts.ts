import type { Kobo } from '../../money';

/** Who bears the provider's fee on a split payment (see docs/split-rules.md). */
export type FeeBearer = 'account' | 'split';

export interface SplitPart {
  toAccountId: string;
  /** A share in hundredths of a percent (1..10000), or null for a fixed amount. */
  basisPoints: number | null;
  amount: Kobo | null;
}

/** What one part of a split moves for a confirmed payment. */
export interface SplitMove {
  position: number;
  toAccountId: string;
  amount: Kobo;
}

/**
 * The amounts a confirmed payment moves under a split rule, in the rule's order. A share is of the gross
 * payment when the account bears the fee, of the net credit when the split shares it; each is rounded down
 * to the kobo, so what the rounding leaves stays with the account. A fixed amount moves as it is. No part moves
 * more than is left of the net credit's unheld part (`held`: what the customer's KYC limits hold of it) after
 * the parts before it: the account never pays a split from money it had before the payment, nor from the
 * payment's held money. A part left with nothing does not move.
 */
export function splitMoves(parts: SplitPart[], feeBearer: FeeBearer, payment: { net: Kobo; fee: Kobo; held: Kobo }): SplitMove[] {
  const base = feeBearer === 'account' ? payment.net + payment.fee : payment.net;
  let left = payment.net - payment.held;
  const moves: SplitMove[] = [];
  parts.forEach((part, index) => {
    const wanted = part.basisPoints !== null ? (base * BigInt(part.basisPoints)) / 10_000n : part.amount!;
    const amount = wanted < left ? wanted : left;
    if (amount <= 0n) return;
    left -= amount;
    moves.push({ position: index + 1, toAccountId: part.toAccountId, amount });
  });
  return moves;
}
