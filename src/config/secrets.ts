import { z } from 'zod';
import type { EncryptionKey } from '../crypto';
import { DEV_ENCRYPTION_KEY, DEV_REQUEST_HASH_SECRET, isPublishedSecret, PUBLISHED_WHERE } from './example-secrets';
import type { Refuse } from './values';

const encryptionKey = z
  .string()
  .default(DEV_ENCRYPTION_KEY)
  .transform((text, ctx) => {
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'expected 32 bytes encoded as base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return key;
  });

/** "id:base64key,id:base64key": the first encrypts, all decrypt. */
const encryptionKeyList = z
  .string()
  .optional()
  .transform((text, ctx): EncryptionKey[] | null => {
    if (text === undefined) return null;
    const keys: EncryptionKey[] = [];
    for (const entry of text.split(',').map((part) => part.trim())) {
      const [id, encoded] = entry.split(':');
      const key = Buffer.from(encoded ?? '', 'base64');
      if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32 || keys.some((other) => other.id === id)) {
        ctx.addIssue({
          code: 'custom',
          message:
            'expected id:key pairs, comma-separated, newest first (ids of letters, digits, - and _, unique; keys of 32 bytes in base64)',
        });
        return z.NEVER;
      }
      keys.push({ id, key });
    }
    return keys;
  });

/** The keys that encrypt stored data and key the stored request hashes. */
export const secretsEnv = z.object({
  DATA_ENCRYPTION_KEY: encryptionKey,
  DATA_ENCRYPTION_KEYS: encryptionKeyList,
  REQUEST_HASH_SECRET: z
    .string()
    .min(32, { error: 'must be at least 32 characters (openssl rand -base64 32)' })
    .default(DEV_REQUEST_HASH_SECRET),
});

export function refusePublishedEncryptionKeys(config: z.output<typeof secretsEnv>, refuse: Refuse): void {
  if (config.DATA_ENCRYPTION_KEYS) {
    if (config.DATA_ENCRYPTION_KEYS.some((entry) => isPublishedSecret(entry.key.toString('base64'))))
      refuse('DATA_ENCRYPTION_KEYS', `holds a key ${PUBLISHED_WHERE}`);
  } else if (isPublishedSecret(config.DATA_ENCRYPTION_KEY.toString('base64'))) {
    refuse('DATA_ENCRYPTION_KEY', `must be set in production to a key of your own (this one is ${PUBLISHED_WHERE})`);
  }
}

export function refusePublishedRequestHashSecret(config: z.output<typeof secretsEnv>, refuse: Refuse): void {
  if (isPublishedSecret(config.REQUEST_HASH_SECRET)) {
    refuse('REQUEST_HASH_SECRET', `must be set in production to a secret of your own (this one is ${PUBLISHED_WHERE})`);
  }
}
