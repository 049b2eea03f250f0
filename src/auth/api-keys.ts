import { randomBytes } from 'node:crypto';
import { sha256 } from '../crypto';

const KEY_PREFIX_LENGTH = 11;

/** A new tenant secret key: "sk_" and 32 random base64url characters; only its SHA-256 is stored. */
export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  const key = `sk_${randomBytes(24).toString('base64url')}`;
  return { key, prefix: key.slice(0, KEY_PREFIX_LENGTH), hash: sha256(key) };
}

export function hashApiKey(key: string): Buffer {
  return sha256(key);
}
