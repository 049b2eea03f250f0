import { createReencryptionService } from '../../encryption/reencryption.service';
import { createIdempotencyRepo } from '../../idempotency/idempotency.repo';
import { keyDigest } from '../../idempotency/request-hash';
import type { Command } from './command';

/** Stored data brought up to the current keys after a key is added or a secret introduced. */
export const keyCommands: Record<string, Command> = {
  'idempotency:rekey': {
    usage: 'idempotency:rekey [--json]   (once after upgrading: keys the request hashes stored before REQUEST_HASH_SECRET)',
    options: {},
    async run(context) {
      const repo = createIdempotencyRepo(context.db);
      let rekeyed = 0;
      for (let batch = await repo.legacyHashes(1_000); batch.length > 0; batch = await repo.legacyHashes(1_000)) {
        for (const record of batch) await repo.replaceHash(record, keyDigest(context.config.REQUEST_HASH_SECRET, record.request_hash));
        rekeyed += batch.length;
      }
      context.print(`rekeyed ${rekeyed} stored request hash(es)`, { rekeyed });
    },
  },
  'crypto:reencrypt': {
    usage: 'crypto:reencrypt [--json]   (after adding a new key first in DATA_ENCRYPTION_KEYS; exit 1 if any ciphertext does not decrypt)',
    options: {},
    async run(context) {
      const result = await createReencryptionService({ db: context.db, keyring: context.config.DATA_ENCRYPTION_KEYRING }).run();
      const human = [
        `re-encrypted ${result.reencrypted} value(s) with key "${context.config.DATA_ENCRYPTION_KEYRING.current.id}"; ${result.alreadyCurrent} already were`,
        ...result.unreadable.map((where) => `  unreadable: ${where}`),
      ].join('\n');
      context.print(human, { keyId: context.config.DATA_ENCRYPTION_KEYRING.current.id, ...result });
      if (result.unreadable.length > 0) process.exitCode = 1;
    },
  },
};
