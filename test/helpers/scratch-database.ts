import knex from 'knex';
import { controlMigrationConfig, migrationConfig } from '../../src/db';

/**
 * A migrated database of its own, for a test that starts a second system while the layer's shared one
 * runs: on one database, each system's worker would claim the other's queued confirmations and look
 * them up at its own sandbox, which never heard of them. Named like the runner's test databases, so a
 * killed run's is dropped by a later run. `adminUrl`: made on another server (a second cluster); `control`: with the
 * control database's migrations too (the directory of tenant placements).
 */
export async function scratchDatabase(
  label: string,
  { migrated = true, control = false, adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL! } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ledger_test_${Date.now()}_${label}`;
  const admin = knex({ client: 'pg', connection: adminUrl });
  await admin.raw(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (migrated) {
    const db = knex({ client: 'pg', connection: url.toString() });
    try {
      await db.migrate.latest(migrationConfig);
      if (control) await db.migrate.latest(controlMigrationConfig);
    } finally {
      await db.destroy();
    }
  }
  return {
    url: url.toString(),
    async drop() {
      await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.destroy());
    },
  };
}
