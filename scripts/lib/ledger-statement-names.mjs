// The ledger's statements are the ledger's own: the names of the CTEs it composes a posting of (posting_*) appear
// only in src/ledger/. A caller that posts in one statement with rows of its own reads what the ledger did through
// the relations the ledger hands its `after` and `select` (posting-statements' Posted* types), so renaming a CTE
// inside the ledger cannot break a caller at run time. That no file outside src/ledger/ imports the statements'
// builders is the dependency-cruiser rule ledger-sql-stays-in-the-ledger. Tests and benchmarks may look at the
// statements (a lock wait seen in pg_stat_activity), and prose (*.md) describes them.
import { repoRoot } from './paths.mjs';
import { matchingLines, trackedFiles, trackedText } from './tracked-files.mjs';

/** The ledger's CTE names (and the bindings its fragments take), spelled so this file does not name one itself. */
const LEDGER_STATEMENT_NAME = new RegExp(`\\b${'posting'}_[a-z][a-z_]*`);

/** Where a ledger CTE may be named. */
const ALLOWED = ['src/ledger/', 'test/', 'bench/'];

/** One line per place outside src/ledger/ that names a CTE of the ledger's statements: `file:line: text`. */
export function ledgerStatementNameViolations() {
  const root = repoRoot();
  return trackedFiles(root)
    .filter((file) => !file.endsWith('.md') && !ALLOWED.some((folder) => file.startsWith(folder)))
    .flatMap((file) => {
      const text = trackedText(root, file);
      return text !== undefined && LEDGER_STATEMENT_NAME.test(text) ? matchingLines(file, text, LEDGER_STATEMENT_NAME) : [];
    });
}
