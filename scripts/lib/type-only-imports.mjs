// The import rules dependency-cruiser cannot check here (its swc parser tells type-only imports apart only
// on newer Node versions, and does not read .tsx): imports across these boundaries must be type-only,
// so no code of the other side runs (workflows are replayed; the dashboard runs in the browser).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from './paths.mjs';

/** `from`: the importing folder; `to`: where the imported path may lead, as types only; `shared`: pure catalogues it may take as values. */
const TYPE_ONLY_BOUNDARIES = [
  { from: 'workflows', to: 'activities', shared: [], why: 'workflows name activities by their types only (proxyActivities)' },
  {
    from: 'dashboard/src',
    to: 'src',
    // The lists of audit actions and finding kinds, so the dashboard's filters offer exactly what the server records.
    shared: ['src/audit/audit-actions', 'src/reconciliation/findings'],
    why: 'the dashboard takes its API types from the server, and no code but the shared catalogues',
  },
];

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** True when the declaration brings in nothing at run time: `import type`, or every named import is `type`. */
function isTypeOnly(node) {
  if (node.typeOnly) return true;
  return node.specifiers?.length > 0 && node.specifiers.every((specifier) => specifier.isTypeOnly);
}

/** Every import or re-export declaration of a file, with its source text. */
function declarationsOf(swc, file) {
  const ast = swc.parseSync(readFileSync(file, 'utf8'), { syntax: 'typescript', tsx: file.endsWith('.tsx'), target: 'es2022' });
  return ast.body.filter(
    (node) => ['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration'].includes(node.type) && node.source,
  );
}

/** One line per import that crosses a boundary and brings in code. */
export function typeOnlyImportViolations() {
  const root = repoRoot();
  const swc = createRequire(join(root, 'package.json'))('@swc/core');
  const violations = [];
  for (const { from, to, shared, why } of TYPE_ONLY_BOUNDARIES) {
    for (const file of sourceFiles(join(root, from))) {
      for (const node of declarationsOf(swc, file)) {
        const target = relative(root, resolve(dirname(file), node.source.value));
        if (!node.source.value.startsWith('.') || !(target === to || target.startsWith(`${to}/`))) continue;
        if (!isTypeOnly(node) && !shared.includes(target)) violations.push(`${relative(root, file)} -> ${target}: ${why}`);
      }
    }
  }
  return violations;
}
