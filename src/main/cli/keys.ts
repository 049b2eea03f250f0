import { createReencryptionService } from '../../encryption/reencryption.service';
import { createRequestHashRekeyer } from '../../idempotency/request-hash-rekeyer';
import type { Command } from './command';

/** Stored data brought up to the current keys after a key is added or a secret introduced. */
export const keyCommands: Record<string, Command> = {
  'idempotency:rekey': {
    usage: 'idempotency:rekey [--json]   (the worker does this in the background; keys the request hashes stored before REQUEST_HASH_SECRET now)',
    options: {},
    async run(context) {
      const rekeyer = createRequestHashRekeyer(context.db, context.config.REQUEST_HASH_SECRET);
      let rekeyed = 0;
      for (let found = await rekeyer.pass(); found > 0; found = await rekeyer.pass()) rekeyed += found;
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
