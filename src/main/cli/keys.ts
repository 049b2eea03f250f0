import { createReencryptionService } from '../../encryption/reencryption.service';
import type { Command } from './command';

/** Stored data brought up to the current key after a key is added. */
export const keyCommands: Record<string, Command> = {
  'crypto:reencrypt': {
    everyCluster: true,
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
