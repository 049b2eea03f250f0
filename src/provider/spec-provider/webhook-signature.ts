import { hmacSha256, safeEqual } from '../../crypto';

/** SPEC.md, Inbound signature: nine fields joined by colons, the last being the timestamp header. */
const SIGNED_PATHS = [
  ['event_type'],
  ['requestId'],
  ['data', 'merchant', 'userId'],
  ['data', 'merchant', 'walletId'],
  ['data', 'transaction', 'transactionId'],
  ['data', 'transaction', 'type'],
  ['data', 'transaction', 'time'],
  ['data', 'transaction', 'responseCode'],
] as const;

function fieldText(payload: unknown, path: readonly string[]): string {
  let value: unknown = payload;
  for (const key of path) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

export function providerSignedString(payload: unknown, timestamp: string): string {
  const fields = SIGNED_PATHS.map((path) => fieldText(payload, path));
  // A responseCode of the string "null" is signed as empty.
  if (fields[7] === 'null') fields[7] = '';
  return [...fields, timestamp].join(':');
}

/** The provider sends base64; we sign the sandbox's events the same way. */
export function signProviderEvent(secret: string, payload: unknown, timestamp: string): string {
  return hmacSha256(secret, providerSignedString(payload, timestamp)).toString('base64');
}

const HEX_DIGEST_RE = /^[0-9a-fA-F]{64}$/;

/** Accepts the digest in base64 or hex, compared in constant time. */
export function verifyProviderSignature(secret: string, payload: unknown, timestamp: string, signature: string): boolean {
  const expected = hmacSha256(secret, providerSignedString(payload, timestamp));
  const trimmed = signature.trim();
  const given = HEX_DIGEST_RE.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  return safeEqual(given, expected);
}
