// The ledger's tables are the ledger's own: only src/ledger/ names them (and their constraints and indexes,
// whose names begin with the table's). Other modules read money through src/ledger/'s read functions and
// predicates. Migrations make the tables, tests and benchmarks look at them directly, and prose (*.md)
// describes them; no other file may spell them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';

/** The ledger's tables, spelled so this file does not name them itself. */
const LEDGER_TABLE = /\bledger_(?:entries|system_postings|reservations|reservation_changes|payment_variances)/;

/** Where a ledger table may be named. */
const ALLOWED = ['src/ledger/', 'migrations/', 'test/', 'bench/'];

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

/** One line per place outside src/ledger/ that names a ledger table: `file:line: text`. */
export function ledgerTableNameViolations() {
  const root = repoRoot();
  const violations = [];
  for (const file of checkedFiles(root)) {
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // listed but deleted in the work tree
    }
    if (!LEDGER_TABLE.test(text)) continue;
    text.split('\n').forEach((line, index) => {
      if (LEDGER_TABLE.test(line)) violations.push(`${file}:${index + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return violations;
}
