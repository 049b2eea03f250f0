import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../..');

/** The TypeScript sources of a folder of the repository, recursively. */
function sources(folder: string): string[] {
  return readdirSync(path.join(repoRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** A balance less the reserved (held) money, in SQL or in TypeScript: what ledger_spendable alone computes. */
const SPENDABLE_FORMULA = /ledger_balance\s*-\s*(\w+\.)?held_balance|ledgerBalance\s*-\s*(\w+\.)?heldBalance/;

describe('what an account may spend', () => {
  it('is computed by ledger_spendable alone: no source subtracts the reserved money from a balance itself', () => {
    const computing = ['src', 'activities', 'workflows', 'dashboard/src']
      .flatMap(sources)
      .filter((file) => SPENDABLE_FORMULA.test(readFileSync(file, 'utf8')));
    assert.deepEqual(
      computing.map((file) => path.relative(repoRoot, file)),
      [],
    );
  });
});
