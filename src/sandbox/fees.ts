import type { Kobo } from '../money';

/**
 * The provider's own fee schedule (SPEC.md, Limits): below 5,000 naira → 10; 5,000 to 50,000
 * inclusive → 25; above → 50. The sandbox charges it; the service must not import it (its fee
 * quotes come from src/fees, which may change independently).
 */
export function providerFeeKobo(amountKobo: Kobo): Kobo {
  if (amountKobo < 500_000n) return 1_000n;
  if (amountKobo <= 5_000_000n) return 2_500n;
  return 5_000n;
}
