/**
 * Idempotency-Keys the service derives for money it moves on its own (a balance sweep's settlement, one
 * per account and period), claimed in the same scopes as the keys clients send. Each begins with
 * "service " and so holds a space, which validIdempotencyKey refuses in a client's key: no request can
 * claim a derived key before the service does, whatever it guesses.
 */
const DERIVED_PREFIX = 'service ';

/** `service <purpose>:<part>:<part>…`, e.g. `service balance-sweep:va_…:2026-12-01`. */
export function derivedIdempotencyKey(purpose: string, ...parts: [string, ...string[]]): string {
  return `${DERIVED_PREFIX}${[purpose, ...parts].join(':')}`;
}
