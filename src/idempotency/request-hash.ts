import { createHash } from 'node:crypto';
import { ConflictError, ValidationError } from '../errors';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, item]) => [key, canonical(item)]),
    );
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Same validated body, same hash, whatever the key order or whitespace of the original JSON. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(body))).digest('hex');
}

export function validIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  return key;
}

export const idempotencyMismatch = (): ConflictError => new ConflictError('Idempotency-Key was already used with a different request');
