// Display formats. Money arrives as exact two-decimal strings and is grouped as text, never through
// floating point.

export const BUSINESS_TIME_ZONE = 'Africa/Lagos';

export function naira(amount: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = '00'] = amount.replace(/^-/, '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '−' : ''}₦${grouped}.${fraction.padEnd(2, '0')}`;
}

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: BUSINESS_TIME_ZONE });
const dateOnly = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: BUSINESS_TIME_ZONE });

export function when(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function day(isoDay: string): string {
  return dateOnly.format(new Date(`${isoDay}T12:00:00+01:00`));
}

/** A date input's YYYY-MM-DD as the start of that Lagos day (WAT is UTC+1 all year). */
export function startOfLagosDay(value: string): string {
  return `${value}T00:00:00+01:00`;
}

/** The end of a Lagos day: the start of the next one, so the period includes the whole day. */
export function endOfLagosDay(value: string): string {
  const next = new Date(`${value}T00:00:00+01:00`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString();
}

/** A datetime-local input's value (YYYY-MM-DDTHH:MM, seconds optional) as that Lagos instant in RFC 3339. */
export function lagosInstant(value: string): string {
  return `${value.length === 16 ? `${value}:00` : value}+01:00`;
}

/** Today's date in Lagos, YYYY-MM-DD (the latest day the daily balances may end on). */
export function lagosToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: BUSINESS_TIME_ZONE }).format(new Date());
}

/** A camelCase field name in words: "providerAmount" → "provider amount". */
export function words(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

export function humanize(text: string): string {
  return text.replace(/[_.]/g, ' ');
}

/** A fresh Idempotency-Key for one intended settlement. */
export function newIdempotencyKey(): string {
  return `dash-${crypto.randomUUID()}`;
}

/** A naira amount as typed ("1000", "1000.5") in the API's two-decimal form. */
export function twoDecimals(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0').slice(0, 2)}`;
}
