import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationConfig } from '../../../src/db';

/** Migrations that sort before the dashboard's 20261123000400 but reached main after it was written. */
const LANDED_LATER = /^20261123000(300|310|320|330)_/;
/** The first release after the dashboard branch: every migration from it on came later. */
const FIRST_LATER_RELEASE = '20261126';
/**
 * What a database migrated on the dashboard branch lacks: those, and the reconciliation's (and its dashboard indexes), the confirmation
 * claims', the API key change notifications', and every migration of the releases that came after it.
 */
const notOnTheDashboardBranch = (file: string): boolean =>
  /^2026112300(0300|0310|0320|0330|0600|0800|0950|1000|1100)_/.test(file) || file >= FIRST_LATER_RELEASE;

/** The migrations directory as knex reads it, less those `skip` matches: the state of a database migrated on a branch. */
function migrationsWithout(skip: (file: string) => boolean): Knex.MigrationSource<string> {
  const directory = migrationConfig.directory as string;
  return {
    getMigrations: async () =>
      readdirSync(directory)
        .filter((file) => file.endsWith('.js') && !skip(file))
        .sort(),
    getMigrationName: (file) => file,
    getMigration: async (file) => require(path.join(directory, file)) as Knex.Migration,
  };
}

/** Tables, columns, constraints and indexes, in a stable order: what two databases must share to be the same schema. */
async function schemaOf(db: Knex): Promise<unknown> {
  const rows = async (sql: string) => (await db.raw(sql)).rows;
  return {
    columns: await rows(
      "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE 'knex_%' ORDER BY 1, 2",
    ),
    constraints: await rows(
      "SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2",
    ),
    indexes: await rows("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2"),
    triggers: await rows(
      "SELECT event_object_table, trigger_name, event_manipulation FROM information_schema.triggers WHERE trigger_schema = 'public' ORDER BY 1, 2, 3",
    ),
  };
}

describe('migrations', () => {
  const names = [`ledger_migrations_${Date.now()}`, `ledger_migrations_branch_${Date.now()}`];
  let admin: Knex;
  let fresh: Knex;
  let branch: Knex;

  before(async () => {
    admin = knex({ client: 'pg', connection: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
    [fresh, branch] = (await Promise.all(
      names.map(async (name) => {
        await admin.raw(`CREATE DATABASE "${name}"`);
        const url = new URL(process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL!);
        url.pathname = `/${name}`;
        return knex({ client: 'pg', connection: url.toString() });
      }),
    )) as [Knex, Knex];
  });

  after(async () => {
    await Promise.all([fresh?.destroy(), branch?.destroy()]);
    for (const name of names) await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.destroy();
  });

  it('migrates up, rolls back to nothing, and migrates up again', async () => {
    const [, applied] = await fresh.migrate.latest(migrationConfig);
    assert.ok(applied.length >= 5);
    const tables = async (): Promise<string[]> =>
      (await fresh.raw("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex_%' ORDER BY 1")).rows.map(
        (row: { tablename: string }) => row.tablename,
      );
    assert.ok((await tables()).includes('ledger_entries'));
    await fresh.migrate.rollback(migrationConfig, true);
    assert.deepEqual(await tables(), []);
    const [, reapplied] = await fresh.migrate.latest(migrationConfig);
    assert.equal(reapplied.length, applied.length);
  });

  it('upgrades a database already at the previous migrations: adjustments join the kinds that may overdraw, and roll back to it', async () => {
    const constraint = async (name: string): Promise<string> =>
      (await fresh.raw('SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = ?', [name])).rows[0].def as string;
    await fresh.migrate.rollback(migrationConfig, true);
    // Up to, and not including, the reconciliation migration: the schema a database on main had.
    for (;;) {
      const [, pending] = (await fresh.migrate.list(migrationConfig)) as [unknown[], Array<{ file: string }>];
      if (pending[0]!.file.startsWith('20261123000600')) break;
      await fresh.migrate.up(migrationConfig);
    }
    assert.doesNotMatch(await constraint('only_reversals_overdraw'), /adjustment/);
    await fresh.migrate.latest(migrationConfig);
    assert.match(await constraint('only_reversals_overdraw'), /'reversal'.*'adjustment'/);
    assert.match(await constraint('ledger_entries_kind_check'), /'adjustment'/);
    assert.match(await constraint('reversal_references_original'), /'adjustment'/);
    assert.match(await constraint('deficit_flag_matches_balance'), /ledger_balance < 0/);
    // Back down through the reconciliation migration (and those after it).
    const completed = async (): Promise<string[]> =>
      ((await fresh.migrate.list(migrationConfig)) as [Array<{ name: string } | string>, unknown[]])[0].map((migration) =>
        typeof migration === 'string' ? migration : migration.name,
      );
    while ((await completed()).some((name) => name.startsWith('20261123000600'))) await fresh.migrate.down(migrationConfig);
    assert.doesNotMatch(await constraint('only_reversals_overdraw'), /adjustment/);
    assert.doesNotMatch(await constraint('ledger_entries_kind_check'), /adjustment/);
    await fresh.migrate.latest(migrationConfig);
  });

  it('refuses a settlement attempt outcome of rejected (an undecided refusal is ambiguous)', async () => {
    await fresh.migrate.latest(migrationConfig);
    const { rows } = await fresh.raw(
      "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'settlement_attempts_outcome_check'",
    );
    assert.match(rows[0].def, /'ambiguous'/);
    assert.doesNotMatch(rows[0].def, /'rejected'/);
  });

  it('brings a database migrated without the migrations that landed later (the dashboard branch) to the same schema as a fresh one', async () => {
    await branch.migrate.latest({ tableName: migrationConfig.tableName, migrationSource: migrationsWithout(notOnTheDashboardBranch) });
    const before = (await branch('knex_migrations').select('name')).map((row: { name: string }) => row.name);
    assert.ok(before.some((name) => name.startsWith('20261123000400_')) && !before.some((name) => LANDED_LATER.test(name)));
    const [, applied] = await branch.migrate.latest(migrationConfig);
    const laterReleases = readdirSync(migrationConfig.directory as string)
      .filter((file) => file.endsWith('.js') && file >= FIRST_LATER_RELEASE)
      .map((file) => file.slice(0, 14))
      .sort();
    assert.ok(laterReleases.length >= 2, `the later releases' migrations: ${laterReleases.join(', ')}`);
    assert.deepEqual(
      applied.map((file: string) => file.slice(0, 14)),
      [
        '20261123000300',
        '20261123000310',
        '20261123000320',
        '20261123000330',
        '20261123000600',
        '20261123000800',
        '20261123000950',
        '20261123001000',
        '20261123001100',
        ...laterReleases,
      ],
    );
    await fresh.migrate.latest(migrationConfig);
    assert.deepEqual(await schemaOf(branch), await schemaOf(fresh));
  });
});
