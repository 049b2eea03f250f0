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

/** Converts a provider JSON number of naira into kobo from its decimal text, never by float arithmetic. */
export function koboFromProviderNumber(value: number): Kobo | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const kobo = new Big(String(value)).times(KOBO_PER_NAIRA);
  if (!kobo.eq(kobo.round(0, Big.roundDown))) return null;
  return BigInt(kobo.toFixed(0));
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
