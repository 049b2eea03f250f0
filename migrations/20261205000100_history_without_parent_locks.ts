import type { Knex } from 'knex';

/**
 * The rows every payment appends name their tenant and account, and a foreign key's check share-locks the
 * tenant's and the account's row for each of them: concurrent payments of one tenant then share that lock
 * and Postgres makes a MultiXact for every such overlap. The statements take those ids from the account row
 * they lock, and tenants and accounts are never deleted, so the keys protected nothing there. The guarantee
 * is kept the other way round: a tenant or an account with history refuses deletion (and a change of id),
 * and ledger:verify names any row whose tenant or account does not exist (a deletion racing an insert, which
 * the trigger cannot see uncommitted, would be one: nothing deletes either today). Keys between the appended rows
 * themselves stay: they name rows the same transaction wrote, whose lock is its own.
 */
const HISTORY: Array<{ table: string; column: string; parent: 'tenants' | 'virtual_accounts' }> = [
  { table: 'ledger_entries', column: 'tenant_id', parent: 'tenants' },
  { table: 'ledger_entries', column: 'account_id', parent: 'virtual_accounts' },
  { table: 'inbound_events', column: 'tenant_id', parent: 'tenants' },
  { table: 'inbound_events', column: 'account_id', parent: 'virtual_accounts' },
  { table: 'webhook_deliveries', column: 'tenant_id', parent: 'tenants' },
  { table: 'webhook_deliveries', column: 'account_id', parent: 'virtual_accounts' },
  { table: 'tenant_events', column: 'tenant_id', parent: 'tenants' },
  { table: 'ledger_payment_variances', column: 'tenant_id', parent: 'tenants' },
  { table: 'ledger_payment_variances', column: 'account_id', parent: 'virtual_accounts' },
  { table: 'ledger_reservations', column: 'tenant_id', parent: 'tenants' },
  { table: 'ledger_reservations', column: 'account_id', parent: 'virtual_accounts' },
  { table: 'ledger_reservation_changes', column: 'tenant_id', parent: 'tenants' },
  { table: 'ledger_reservation_changes', column: 'account_id', parent: 'virtual_accounts' },
];

/** A check that no row of the history names OLD.id through `parent`'s columns (ledger_system_postings has no key). */
function historyOf(parent: 'tenants' | 'virtual_accounts'): string {
  const tables = HISTORY.filter((key) => key.parent === parent).map((key) => ({ table: key.table, column: key.column }));
  if (parent === 'tenants') tables.push({ table: 'ledger_system_postings', column: 'tenant_id' });
  return tables.map(({ table, column }) => `EXISTS (SELECT 1 FROM ${table} WHERE ${column} = OLD.id)`).join('\n           OR ');
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${HISTORY.map(({ table, column }) => `ALTER TABLE ${table} DROP CONSTRAINT ${table}_${column}_fkey;`).join('\n    ')}

    CREATE FUNCTION tenants_keep_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${historyOf('tenants')} THEN
        RAISE EXCEPTION 'tenant % has ledger history: % refused', OLD.id, TG_OP USING ERRCODE = 'foreign_key_violation';
      END IF;
      IF TG_OP = 'DELETE' THEN
        RETURN OLD;
      END IF;
      RETURN NEW;
    END;
    $$;
    CREATE TRIGGER tenants_keep_history BEFORE DELETE OR UPDATE OF id ON tenants
      FOR EACH ROW EXECUTE FUNCTION tenants_keep_history();

    CREATE FUNCTION virtual_accounts_keep_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${historyOf('virtual_accounts')} THEN
        RAISE EXCEPTION 'account % has ledger history: % refused', OLD.id, TG_OP USING ERRCODE = 'foreign_key_violation';
      END IF;
      IF TG_OP = 'DELETE' THEN
        RETURN OLD;
      END IF;
      RETURN NEW;
    END;
    $$;
    CREATE TRIGGER virtual_accounts_keep_history BEFORE DELETE OR UPDATE OF id ON virtual_accounts
      FOR EACH ROW EXECUTE FUNCTION virtual_accounts_keep_history();

    -- TRUNCATE skips row triggers; a foreign key refused it while any row referred to the table.
    CREATE FUNCTION history_parents_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% holds the parents of ledger history: TRUNCATE refused', TG_TABLE_NAME;
    END;
    $$;
    CREATE TRIGGER tenants_no_truncate BEFORE TRUNCATE ON tenants FOR EACH STATEMENT EXECUTE FUNCTION history_parents_no_truncate();
    CREATE TRIGGER virtual_accounts_no_truncate BEFORE TRUNCATE ON virtual_accounts
      FOR EACH STATEMENT EXECUTE FUNCTION history_parents_no_truncate();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER tenants_no_truncate ON tenants;
    DROP TRIGGER virtual_accounts_no_truncate ON virtual_accounts;
    DROP FUNCTION history_parents_no_truncate();
    DROP TRIGGER virtual_accounts_keep_history ON virtual_accounts;
    DROP FUNCTION virtual_accounts_keep_history();
    DROP TRIGGER tenants_keep_history ON tenants;
    DROP FUNCTION tenants_keep_history();
    ${HISTORY.map(
      ({ table, column, parent }) =>
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_${column}_fkey FOREIGN KEY (${column}) REFERENCES ${parent}(id);`,
    ).join('\n    ')}
  `);
}
