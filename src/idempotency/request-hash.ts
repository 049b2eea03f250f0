import { createHash, createHmac } from 'node:crypto';
import { safeEqual } from '../crypto';
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

const KEYED_PREFIX = 'hmac-sha256:';

/** The unkeyed digest stored before request hashes were keyed; anyone could test a guessed BVN against it. */
function digest(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

/** Keys a digest: the form every request hash is stored in. */
function keyDigest(secret: string, hexDigest: string): string {
  return KEYED_PREFIX + createHmac('sha256', secret).update(hexDigest).digest('hex');
}

function isKeyedHash(stored: string): boolean {
  return stored.startsWith(KEYED_PREFIX);
}

/**
 * Same validated body, same hash, whatever the key order or whitespace of the original JSON. Keyed
 * with REQUEST_HASH_SECRET, so a stored hash reveals nothing about a BVN or NIN in the body to
 * someone who can read the table but not the secret.
 */
export function requestHash(secret: string, body: unknown): string {
  return keyDigest(secret, digest(body));
}

/** Whether a stored hash is this request's; hashes stored before keying are still honoured. */
export function sameRequest(stored: string, secret: string, body: unknown): boolean {
  const expected = isKeyedHash(stored) ? requestHash(secret, body) : digest(body);
  return safeEqual(Buffer.from(stored), Buffer.from(expected));
}

/**
 * A client's key: 1 to 255 visible ASCII characters. Never a space: the keys the service derives for
 * itself hold one (derived-keys.ts), so no client's key can claim them.
 */
export function validIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  return key;
}

/** For requests that are never safe to retry without one (a transfer has nothing else to tell a retry from a second one). */
export function requiredIdempotencyKey(key: string | undefined): string {
  const valid = validIdempotencyKey(key);
  if (valid === undefined) throw new ValidationError('Idempotency-Key header is required');
  return valid;
}

export const idempotencyMismatch = (): ConflictError => new ConflictError('Idempotency-Key was already used with a different request');
