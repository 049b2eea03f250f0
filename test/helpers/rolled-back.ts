import assert from 'node:assert/strict';
import type { Stack } from './stack';

/** Runs `body` in a transaction of the stack's database and rolls back whatever it did, once it has run. */
export async function rolledBack(stack: Stack, body: (trx: Stack['infra']['db']) => Promise<void>): Promise<void> {
  const rollback = new Error('rolled back');
  await assert.rejects(
    stack.infra.db.transaction(async (trx) => {
      await body(trx);
      throw rollback;
    }),
    (error) => error === rollback,
  );
}
