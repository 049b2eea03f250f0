import assert from 'node:assert/strict';
import knex, { type Knex } from 'knex';
import { migrationConfig } from '../../src/db';

describe('migrations', () => {
  const name = `ledger_migrations_${Date.now()}`;
  let admin: Knex;
  let fresh: Knex;

  before(async () => {
    admin = knex({ client: 'pg', connection: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
    await admin.raw(`CREATE DATABASE "${name}"`);
    const url = new URL(process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    fresh = knex({ client: 'pg', connection: url.toString() });
  });

  after(async () => {
    await fresh.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
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
    await fresh.migrate.down(migrationConfig);
    assert.doesNotMatch(await constraint('only_reversals_overdraw'), /adjustment/);
    assert.doesNotMatch(await constraint('ledger_entries_kind_check'), /adjustment/);
    await fresh.migrate.latest(migrationConfig);
  });
});
