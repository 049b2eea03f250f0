import Big from 'big.js';

/** Money is held as bigint kobo everywhere; this module is the only place that converts it. */
export type Kobo = bigint;

const NAIRA_INPUT_RE = /^\d+(\.\d{1,2})?$/;
const KOBO_PER_NAIRA = new Big(100);

/** Parses a tenant-supplied decimal naira string ("1500", "1500.5", "1500.50"); null when not valid. */
export function parseNairaInput(input: unknown): Kobo | null {
  if (typeof input !== 'string' || !NAIRA_INPUT_RE.test(input)) return null;
  return BigInt(new Big(input).times(KOBO_PER_NAIRA).toFixed(0));
}

/** Up to here (11 trillion naira) neighbouring kobo amounts are distinct doubles, well apart. */
const EXACT_KOBO_LIMIT = 2 ** 50;

/**
 * Converts a provider JSON number of naira into kobo from its decimal text, never by float arithmetic.
 * The usual amount has at most two decimals, and then the whole number nearest value × 100 is its kobo:
 * the product only proposes it, and dividing it by 100 must give back exactly the same number, which
 * holds only when the decimal text is that many kobo (the unit test checks against the text through
 * big.js). Anything else (more decimals, huge or tiny amounts) is read from the text by big.js. A
 * listing page converts a thousand amounts, and big.js allocates for each.
 */
export function koboFromProviderNumber(value: number): Kobo | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const kobo = Math.round(value * 100);
  if (Math.abs(kobo) <= EXACT_KOBO_LIMIT && kobo / 100 === value) return BigInt(kobo);
  const exact = new Big(String(value)).times(KOBO_PER_NAIRA);
  if (!exact.eq(exact.round(0, Big.roundDown))) return null;
  return BigInt(exact.toFixed(0));
}

/** Kobo to the API's two-decimal naira string: 150050n -> "1500.50". */
export function formatKobo(kobo: Kobo): string {
  const negative = kobo < 0n;
  const abs = negative ? -kobo : kobo;
  const naira = abs / 100n;
  const rest = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${naira}.${rest}`;
}

/** Kobo to a JSON number of naira, for the provider's wire format only. */
export function koboToProviderNumber(kobo: Kobo): number {
  return Number(new Big(kobo.toString()).div(KOBO_PER_NAIRA).toString());
}

/** int8 columns arrive from pg as strings. */
export function koboFromDb(value: string | number | bigint): Kobo {
  return BigInt(value);
}
