import type { Kobo } from '../money';

/** One row of the provider's fee schedule: sends from minSend to maxSend (inclusive; null = no ceiling) pay `fee`. */
export interface FeeTier {
  minSend: Kobo;
  maxSend: Kobo | null;
  fee: Kobo;
}

export interface FeeQuote {
  receive: Kobo;
  fee: Kobo;
  send: Kobo;
}

function contains(tier: FeeTier, send: Kobo): boolean {
  return send >= tier.minSend && (tier.maxSend === null || send <= tier.maxSend);
}

/** The fee the provider deducts from a payment of `send`; null when no tier covers it. */
export function feeFor(tiers: readonly FeeTier[], send: Kobo): Kobo | null {
  return tiers.find((tier) => contains(tier, send))?.fee ?? null;
}

/**
 * The smallest send whose own tier's fee leaves exactly `receive`. A send S lands `receive` only if
 * S = receive + fee(S), so each tier offers at most one candidate, receive + its fee, valid when that
 * send falls inside the tier. Near a boundary two tiers can both qualify; the payer sends the smaller.
 * Null when no tier qualifies (only possible if a larger send can pay a smaller fee).
 */
export function quoteFor(tiers: readonly FeeTier[], receive: Kobo): FeeQuote | null {
  let best: FeeQuote | null = null;
  for (const tier of tiers) {
    const send = receive + tier.fee;
    if (contains(tier, send) && (best === null || send < best.send)) best = { receive, fee: tier.fee, send };
  }
  return best;
}

/**
 * Problems with a schedule, empty when it is usable: tiers start at zero, follow each other to the
 * kobo with no gap or overlap, the last has no ceiling, and fees never fall as the send grows (which
 * is what makes every receive amount reachable).
 */
export function scheduleProblems(tiers: readonly FeeTier[]): string[] {
  if (tiers.length === 0) return ['the schedule needs at least one tier'];
  const problems: string[] = [];
  if (tiers[0]!.minSend !== 0n) problems.push('the first tier must start at 0');
  tiers.forEach((tier, index) => {
    const position = `tier ${index + 1}`;
    if (tier.fee < 0n) problems.push(`${position}: the fee cannot be negative`);
    if (tier.maxSend !== null && tier.maxSend < tier.minSend) problems.push(`${position}: it ends before it starts`);
    const next = tiers[index + 1];
    if (!next) {
      if (tier.maxSend !== null) problems.push(`${position}: the last tier must be open-ended`);
      return;
    }
    if (tier.maxSend === null) problems.push(`${position}: only the last tier may be open-ended`);
    else if (next.minSend !== tier.maxSend + 1n) problems.push(`tier ${index + 2} must start one kobo after tier ${index + 1} ends`);
    if (next.fee < tier.fee) problems.push(`tier ${index + 2}: the fee cannot be lower than the fee of a smaller send`);
  });
  return problems;
}
