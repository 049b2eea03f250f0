import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** The newest key encrypts; every key decrypts (a rotation keeps the old ones until re-encryption is done). */
export interface Keyring {
  current: EncryptionKey;
  all: EncryptionKey[];
}

export function createKeyring(keys: EncryptionKey[]): Keyring {
  if (keys.length === 0) throw new Error('a keyring needs at least one key');
  return { current: keys[0]!, all: keys };
}

const b64 = (buffer: Buffer): string => buffer.toString('base64url');

/**
 * AES-256-GCM, stored as "v2.<key id>.<iv>.<tag>.<ciphertext>" (base64url). `context` names the
 * column and row ("customers.bvn:<id>") and is bound as associated data: a ciphertext copied to
 * another row or column no longer decrypts.
 */
export function encryptSecret(keyring: Keyring, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', keyring.current.id, b64(iv), b64(cipher.getAuthTag()), b64(ciphertext)].join('.');
}

function open(key: Buffer, iv: string, tag: string, ciphertext: string, context: string | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (context !== null) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * Decrypts "v2" with the key it names and its context, and the older "v1.<iv>.<tag>.<ciphertext>"
 * (one key, no key id, no associated data) with whichever key of the ring opens it.
 */
export function decryptSecret(keyring: Keyring, stored: string, context: string): string {
  const parts = stored.split('.');
  if (parts[0] === 'v2' && parts.length === 5) {
    const [, keyId, iv, tag, ciphertext] = parts as [string, string, string, string, string];
    const key = keyring.all.find((candidate) => candidate.id === keyId);
    if (!key) throw new Error(`no key "${keyId}" in the keyring (DATA_ENCRYPTION_KEYS)`);
    return open(key.key, iv, tag, ciphertext, context);
  }
  if (parts[0] === 'v1' && parts.length === 4) {
    const [, iv, tag, ciphertext] = parts as [string, string, string, string];
    for (const key of keyring.all) {
      try {
        return open(key.key, iv, tag, ciphertext, null);
      } catch {
        // another key of the ring may have written it
      }
    }
    throw new Error('no key of the keyring opens this v1 ciphertext');
  }
  throw new Error('unrecognised ciphertext format');
}

/** Whether `crypto:reencrypt` should rewrite it: written by an older key, or in the v1 format. */
export function isEncryptedWithCurrentKey(keyring: Keyring, stored: string): boolean {
  return stored.startsWith(`v2.${keyring.current.id}.`);
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function hmacSha256(secret: string, payload: string | Buffer): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** Constant-time comparison that is also safe for inputs of different lengths. */
export function safeEqual(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
