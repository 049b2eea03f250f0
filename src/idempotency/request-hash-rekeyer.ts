import type { DbOrTrx } from '../db';
import { createIdempotencyRepo } from './idempotency.repo';
import { keyDigest } from './request-hash';

/** Hashes re-keyed per pass: one short statement each, so a pass never holds the table up. */
export const REKEY_BATCH = 1_000;

/**
 * Re-keys request hashes stored before keying, a batch per pass: an unkeyed SHA-256 of a body can be
 * tested against guessed BVNs by anyone who reads the table. The worker runs it in the background, so
 * no one has to remember a command after upgrading. Each update matches the old hash, so two workers
 * (or the CLI) running it at once rewrite each row once.
 */
export function createRequestHashRekeyer(db: DbOrTrx, secret: string) {
  const repo = createIdempotencyRepo(db);
  return {
    /** Re-keys up to REKEY_BATCH hashes; answers how many it found. */
    async pass(): Promise<number> {
      const batch = await repo.legacyHashes(REKEY_BATCH);
      for (const record of batch) await repo.replaceHash(record, keyDigest(secret, record.request_hash));
      return batch.length;
    },
  };
}

export type RequestHashRekeyer = ReturnType<typeof createRequestHashRekeyer>;
