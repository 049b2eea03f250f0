import { formatKobo, type Kobo } from '../money';
import type { PayoutStanding } from '../ledger/posting-engine';
import { SWEEP_TIME_ZONE } from './balance-sweep-period';

/** What a run settles, and why it is less than the run found to move (null when it is not); nothing when the limit has nothing left. */
export interface SweepAmount {
  amount: Kobo;
  cap: string | null;
}

/**
 * What a run that found `wanted` to move settles: at most MAX_AMOUNT, and at most what the customer's
 * daily payout limit leaves today (read before the settlement, whose own check still enforces the
 * limit). The rest stays in the account for a later period; zero when the limit has nothing left.
 */
export function sweepAmount(
  wanted: Kobo,
  maxAmount: Kobo,
  standing: Pick<PayoutStanding, 'tier' | 'dailyLimit' | 'usedToday'>,
): SweepAmount {
  let sized: SweepAmount = { amount: wanted, cap: null };
  if (sized.amount > maxAmount)
    sized = {
      amount: maxAmount,
      cap: `capped at ${formatKobo(maxAmount)}, the most one settlement may pay; the rest goes in a later period`,
    };
  if (standing.dailyLimit !== null) {
    const limit = `the tier ${standing.tier} daily payout limit of ${formatKobo(standing.dailyLimit)}`;
    const left = standing.dailyLimit > standing.usedToday ? standing.dailyLimit - standing.usedToday : 0n;
    if (left === 0n) return { amount: 0n, cap: `${limit} has nothing left today (${SWEEP_TIME_ZONE})` };
    if (sized.amount > left)
      sized = {
        amount: left,
        cap: `capped at the ${formatKobo(left)} left today (${SWEEP_TIME_ZONE}) of ${limit}; the rest goes in a later period`,
      };
  }
  return sized;
}
