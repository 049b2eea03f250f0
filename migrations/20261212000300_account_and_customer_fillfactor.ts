import type { Knex } from 'knex';

/**
 * Every posting rewrites its accounts' rows (their totals) and every credit its customer's row (the unheld balance).
 * Three tenths of each page of the two tables is kept free for those new versions, so a row's new version finds room on
 * its own page and the update stays heap-only: it writes no entry into any of the table's indexes (the accounts have
 * eight, one a GIN over their metadata). On full pages that depended on Postgres having pruned the page's old
 * versions in time, which concurrent statements across many accounts often prevent. Rows inserted from now on leave
 * the room; a row on a page written before moves to a page with room the first time its new version does not fit.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE virtual_accounts SET (fillfactor = 70)');
  await knex.raw('ALTER TABLE customers SET (fillfactor = 70)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE virtual_accounts RESET (fillfactor)');
  await knex.raw('ALTER TABLE customers RESET (fillfactor)');
}
