// The ledger's tables are the ledger's own: only src/ledger/ names them (and their constraints and indexes,
// whose names begin with the table's). Other modules read money through src/ledger/'s read functions and
// predicates. Migrations make the tables, tests and benchmarks look at them directly, and prose (*.md)
// describes them; no other file may spell them.
import { repoRoot } from './paths.mjs';
import { matchingLines, trackedFiles, trackedText } from './tracked-files.mjs';

/** The ledger's tables, spelled so this file does not name them itself. */
const LEDGER_TABLE = /\bledger_(?:entries|system_postings|reservations|reservation_changes|payment_variances)/;

/** Where a ledger table may be named. */
const ALLOWED = ['src/ledger/', 'migrations/', 'test/', 'bench/'];

/** One line per place outside src/ledger/ that names a ledger table: `file:line: text`. */
export function ledgerTableNameViolations() {
  const root = repoRoot();
  return trackedFiles(root)
    .filter((file) => !file.endsWith('.md') && !ALLOWED.some((folder) => file.startsWith(folder)))
    .flatMap((file) => {
      const text = trackedText(root, file);
      return text !== undefined && LEDGER_TABLE.test(text) ? matchingLines(file, text, LEDGER_TABLE) : [];
    });
}
