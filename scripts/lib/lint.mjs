// The `lint` step of `npm test`: import boundaries (dependency-cruiser with .dependency-cruiser.cjs, plus the
// type-only boundaries), the ledger's table and statement names kept inside src/ledger/, money events recorded only by
// src/events/, and formatting (Prettier with
// .prettierrc.json). Reads sources only: no build needed.
import { join } from 'node:path';
import { ledgerStatementNameViolations } from './ledger-statement-names.mjs';
import { ledgerTableNameViolations } from './ledger-table-names.mjs';
import { moneyEventViolations } from './money-events.mjs';
import { repoRoot } from './paths.mjs';
import { typeOnlyImportViolations } from './type-only-imports.mjs';
import { run } from './util.mjs';

/** The server code and the TypeScript client whose imports are checked; the dashboard front end is checked by type-only-imports.mjs. */
const CRUISED = ['src', 'activities', 'workflows', 'knexfile.ts', 'sdk/src', 'sdk/scripts'];

/** Runs both checks; logs what fails and how to fix it. Resolves to true when both pass. */
export async function lint({ log }) {
  const root = repoRoot();
  const [cruise, format] = await Promise.all([
    run(
      process.execPath,
      [
        join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
        '--config',
        '.dependency-cruiser.cjs',
        '--output-type',
        'err',
        ...CRUISED,
      ],
      { cwd: root },
    ),
    run(
      process.execPath,
      [join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--check', '.', '--cache', '--log-level', 'warn'],
      { cwd: root },
    ),
  ]);
  const typeOnly = typeOnlyImportViolations();
  const ledgerTables = ledgerTableNameViolations();
  const ledgerStatements = ledgerStatementNameViolations();
  const moneyEvents = moneyEventViolations();

  const boundariesHold = cruise.ok && typeOnly.length === 0;
  if (!boundariesHold) {
    const output = `${cruise.stdout}${cruise.stderr}`.replace(/^\n+|\s+$/g, '');
    log(
      `import boundaries broken (rules and layers in .dependency-cruiser.cjs):\n${output}${typeOnly.map((line) => `\n  error type-only: ${line}`).join('')}`,
    );
  }
  if (ledgerTables.length > 0) {
    log(
      `ledger tables named outside src/ledger/ (read them through src/ledger/'s read functions and predicates):\n${ledgerTables.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  if (ledgerStatements.length > 0) {
    log(
      `the ledger's statement names used outside src/ledger/ (read what a posting did from the relations the ledger hands \`after\` and \`select\`):\n${ledgerStatements.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  if (moneyEvents.length > 0) {
    log(
      `money events recorded outside src/events/ (move money through the evented ledger, which tells what it did; recordChange is for what moves no money):\n${moneyEvents.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  if (!format.ok) {
    const output = `${format.stdout}${format.stderr}`.trim();
    const files = output
      .split('\n')
      .filter((line) => line.startsWith('[warn] ') && !line.includes('Code style issues'))
      .map((line) => `  ${line.slice('[warn] '.length)}`);
    log(
      files.length
        ? `${files.length} files are not formatted as Prettier would (npm run format rewrites them):\n${files.join('\n')}`
        : `prettier --check failed:\n${output}`,
    );
  }
  const ledgerOwnsItsNames = ledgerTables.length === 0 && ledgerStatements.length === 0;
  const moneyToldOnce = moneyEvents.length === 0;
  if (boundariesHold && ledgerOwnsItsNames && moneyToldOnce && format.ok)
    log(
      'import boundaries hold; only the ledger names its tables and statements; only src/events/ records money events; every file is formatted',
    );
  return boundariesHold && ledgerOwnsItsNames && moneyToldOnce && format.ok;
}
