import { randomBytes } from 'node:crypto';

/**
 * Random bytes for ids, drawn a few kilobytes at a time: a webhook makes several ids, and one call into
 * the CSPRNG per id cost more than the rest of making it. Each slice is used once.
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let poolOffset = 0;

function sixteenRandomBytes(): Buffer {
  if (poolOffset + 16 > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    poolOffset = 0;
  }
  poolOffset += 16;
  return randomPool.subarray(poolOffset - 16, poolOffset);
}

/** UUIDv7: time-ordered, so primary keys double as creation-ordered cursors. */
export function uuidv7(): string {
  const bytes = sixteenRandomBytes();
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Random identifier made of lowercase letters and digits. */
export function randomToken(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}
