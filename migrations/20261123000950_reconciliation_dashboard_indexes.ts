import type { Knex } from 'knex';

/**
 * The dashboard's reconciliation pages: a tenant's findings filtered by kind (newest first), and the
 * runs that met one finding (the link table's key starts with the run, so it cannot find them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX reconciliation_exceptions_tenant_kind_idx ON reconciliation_exceptions (tenant_id, kind, id);
    CREATE INDEX reconciliation_run_exceptions_exception_idx ON reconciliation_run_exceptions (exception_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX reconciliation_exceptions_tenant_kind_idx, reconciliation_run_exceptions_exception_idx');
}
