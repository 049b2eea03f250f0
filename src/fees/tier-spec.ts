import { ValidationError } from '../errors';
import { formatKobo, parseNairaInput } from '../money';
import type { FeeTier } from './fee-schedule';

/** "MIN-MAX:FEE" in naira, MAX empty for the open-ended tier. */
const TIER_RE = /^([^-:]+)-([^-:]*):([^-:]+)$/;

function naira(text: string, what: string): bigint {
  const kobo = parseNairaInput(text.trim());
  if (kobo === null) throw new ValidationError(`${what} "${text}" is not a naira amount such as 4999.99`);
  return kobo;
}

/** The CLI's notation: "0-4999.99:10,5000-50000:25,50000.01-:50" (naira; the schedule's rules are checked elsewhere). */
export function parseTierSpec(spec: string): FeeTier[] {
  return spec.split(',').map((part, index) => {
    const match = TIER_RE.exec(part.trim());
    if (!match) throw new ValidationError(`tier ${index + 1} "${part}" is not MIN-MAX:FEE (MAX empty for the last tier)`);
    const [, min, max, fee] = match as unknown as [string, string, string, string];
    return {
      minSend: naira(min, 'minimum'),
      maxSend: max.trim() === '' ? null : naira(max, 'maximum'),
      fee: naira(fee, 'fee'),
    };
  });
}

/** The same notation back, so `fees:show` prints what `fees:set` accepts. */
export function formatTierSpec(tiers: readonly FeeTier[]): string {
  return tiers
    .map((tier) => `${formatKobo(tier.minSend)}-${tier.maxSend === null ? '' : formatKobo(tier.maxSend)}:${formatKobo(tier.fee)}`)
    .join(',');
}
