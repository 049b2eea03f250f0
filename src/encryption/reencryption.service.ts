import { decryptSecret, encryptSecret, isEncryptedWithCurrentKey, type Keyring } from '../crypto';
import type { Db } from '../db';
import { ENCRYPTED_COLUMNS, encryptionContext } from './encrypted-columns';
import { createEncryptedColumnsRepo } from './encrypted-columns.repo';

interface ReencryptionResult {
  /** Rewritten with the newest key (they were under an older key, or in the v1 format). */
  reencrypted: number;
  alreadyCurrent: number;
  /** Ciphertexts no key of the ring opens, or bound to another row or column: "<table>.<column>:<id>". */
  unreadable: string[];
}

/**
 * The second half of a key rotation: with the new key first in DATA_ENCRYPTION_KEYS and the old ones
 * after it, rewrites every ciphertext under the new key, after which the old keys can be dropped.
 * Every ciphertext is opened, so the run also proves they all decrypt.
 */
export function createReencryptionService(deps: { db: Db; keyring: Keyring }) {
  const { db, keyring } = deps;
  const repo = createEncryptedColumnsRepo(db);

  return {
    async run(): Promise<ReencryptionResult> {
      const result: ReencryptionResult = { reencrypted: 0, alreadyCurrent: 0, unreadable: [] };
      for (const column of ENCRYPTED_COLUMNS) {
        for (let page = await repo.page(column, null, 500); page.length > 0; page = await repo.page(column, page.at(-1)!.id, 500)) {
          for (const row of page) {
            const context = encryptionContext(column, row.id);
            let plaintext: string;
            try {
              plaintext = decryptSecret(keyring, row.ciphertext, context);
            } catch {
              result.unreadable.push(context);
              continue;
            }
            if (isEncryptedWithCurrentKey(keyring, row.ciphertext)) result.alreadyCurrent += 1;
            else if (await repo.replace(column, row, encryptSecret(keyring, plaintext, context))) result.reencrypted += 1;
          }
        }
      }
      return result;
    },
  };
}
