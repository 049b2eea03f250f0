import type { DbOrTrx } from '../db';
import { createLedgerVerificationRepo } from '../ledger/ledger-verification.repo';
import { tenantMoneyByHolder } from '../ledger/tenant-copies';
import { tenantFilter } from './tenant-copy';
import { quoted, type TenantTable } from './tenant-tables';

/** What a copy's verification found wrong, one line each; empty when the copy is the source's. */
export type CopyDifferences = string[];

/**
 * The ledger's own verification (ledger:verify's checks) on one database, kept to the tenant's problems: those on
 * its accounts or naming it. The checks read the whole database; another tenant's problem there is not this move's.
 */
async function ledgerProblemsOf(db: DbOrTrx, tenantId: string): Promise<string[]> {
  const refs = new Set<string>(
    (await db('virtual_accounts').where({ tenant_id: tenantId }).select('account_ref')).map(
      (row: { account_ref: string }) => row.account_ref,
    ),
  );
  const problems = await createLedgerVerificationRepo(db).problems();
  return problems
    .filter((problem) => (problem.accountRef !== null && refs.has(problem.accountRef)) || problem.detail.includes(tenantId))
    .map((problem) => `${problem.check}${problem.accountRef ? ` (${problem.accountRef})` : ''}: ${problem.detail}`);
}

/**
 * Compares the tenant on both databases: every table's count of the tenant's rows, every account's and customer's
 * money, and the ledger's verification clean for the tenant on each side. Either side may be a transaction (the
 * copy's snapshot, the copy's own uncommitted target).
 */
export async function tenantCopyDifferences(
  source: DbOrTrx,
  target: DbOrTrx,
  tenantId: string,
  tables: TenantTable[],
): Promise<CopyDifferences> {
  const differences: string[] = [];
  for (const table of tables) {
    const count = async (db: DbOrTrx) =>
      Number((await db.raw(`SELECT count(*) AS n FROM ${quoted(table.name)} t WHERE ${tenantFilter(table, tenantId)}`)).rows[0].n);
    const [onSource, onTarget] = [await count(source), await count(target)];
    if (onSource !== onTarget) differences.push(`${table.name}: ${onSource} rows on the source, ${onTarget} on the target`);
  }
  const [sourceMoney, targetMoney] = [await tenantMoneyByHolder(source, tenantId), await tenantMoneyByHolder(target, tenantId)];
  for (const [id, money] of sourceMoney) {
    if (targetMoney.get(id) !== money) differences.push(`${id}: ${money} on the source, ${targetMoney.get(id) ?? 'missing'} on the target`);
  }
  for (const id of targetMoney.keys()) if (!sourceMoney.has(id)) differences.push(`${id}: on the target only`);
  for (const [side, db] of [
    ['source', source],
    ['target', target],
  ] as const) {
    for (const problem of await ledgerProblemsOf(db, tenantId)) differences.push(`ledger:verify on the ${side}: ${problem}`);
  }
  return differences;
}
