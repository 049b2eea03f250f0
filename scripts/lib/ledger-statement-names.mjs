// The ledger's statements are the ledger's own: the names of the CTEs it composes a posting of (posting_*) appear
// only in src/ledger/. A caller that posts in one statement with rows of its own reads what the ledger did through
// the relations the ledger hands its `after` and `select` (posting-statements' Posted* types), so renaming a CTE
// inside the ledger cannot break a caller at run time. That no file outside src/ledger/ imports the statements'
// builders is the dependency-cruiser rule ledger-sql-stays-in-the-ledger. Tests and benchmarks may look at the
// statements (a lock wait seen in pg_stat_activity), and prose (*.md) describes them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';

/** The ledger's CTE names (and the bindings its fragments take), spelled so this file does not name one itself. */
const LEDGER_STATEMENT_NAME = new RegExp(`\\b${'posting'}_[a-z][a-z_]*`);

/** Where a ledger CTE may be named. */
const ALLOWED = ['src/ledger/', 'test/', 'bench/'];

/** Every file git tracks or would track (new files too), outside ALLOWED and the prose. */
function checkedFiles(root) {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0'))].filter(
    (file) => file !== '' && !file.endsWith('.md') && !ALLOWED.some((folder) => file.startsWith(folder)),
  );
}

/** One line per place outside src/ledger/ that names a CTE of the ledger's statements: `file:line: text`. */
export function ledgerStatementNameViolations() {
  const root = repoRoot();
  const violations = [];
  for (const file of checkedFiles(root)) {
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // listed but deleted in the work tree
    }
    if (!LEDGER_STATEMENT_NAME.test(text)) continue;
    text.split('\n').forEach((line, index) => {
      if (LEDGER_STATEMENT_NAME.test(line)) violations.push(`${file}:${index + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return violations;
}
