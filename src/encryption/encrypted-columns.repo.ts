import type { DbOrTrx } from '../db';
import type { EncryptedColumn } from './encrypted-columns';

interface CiphertextRow {
  id: string;
  ciphertext: string;
}

export function createEncryptedColumnsRepo(db: DbOrTrx) {
  return {
    /** Rows holding a ciphertext in `column`, in id order after `afterId`. */
    async page(column: EncryptedColumn, afterId: string | null, limit: number): Promise<CiphertextRow[]> {
      const query = db(column.table).whereNotNull(column.column).orderBy('id').limit(limit).select('id', `${column.column} as ciphertext`);
      if (afterId) query.where('id', '>', afterId);
      return query;
    },

    /** Replaces the ciphertext only if it is still the one read (a concurrent write wins). */
    async replace(column: EncryptedColumn, row: CiphertextRow, ciphertext: string): Promise<boolean> {
      return (
        (await db(column.table)
          .where({ id: row.id, [column.column]: row.ciphertext })
          .update({ [column.column]: ciphertext })) > 0
      );
    },
  };
}
