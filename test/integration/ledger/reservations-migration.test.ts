import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import knex, { type Knex } from 'knex';
import * as reservationsMigration from '../../../migrations/20261204000100_ledger_reservations';
import * as historyByMonthMigration from '../../../migrations/20261212000100_ledger_history_by_month';
import { migrationConfig } from '../../../src/db';
import { uuidv7 } from '../../../src/ids';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (databaseUrl: string, ...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });

/** A payer whose name the sandbox's name enquiry gives as the payment names them. */
const PAYER_ACCOUNT = '0123456789';

// Held money of every shape the holds had (open, released by an operator, released by a reversal, returned to its
// payer by a settlement, partly released by a tier rise) goes back to holds, their releases and their returns (the
// schema before reservations), and the migration to reservations moves every row: nothing lost, ledger:verify clean.
// The migration's down refuses what a hold cannot say (a reservation that expires, an expired one): the test has a
// database of its own, migrated to the latest, so what other tests reserved is never in it.
describe('the migration from holds to reservations', () => {
  const database = `ledger_reservations_migration_${Date.now()}`;
  let admin: Knex;
  let databaseUrl: string;
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    admin = knex({ client: 'pg', connection: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
    await admin.raw(`CREATE DATABASE "${database}"`);
    const url = new URL(process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    const own = knex({ client: 'pg', connection: databaseUrl });
    await own.migrate.latest(migrationConfig);
    await own.destroy();
    stack = await startStack(
      {
        DATABASE_URL: databaseUrl,
        CONFIRMATION_WINDOW: '3s',
        CONFIRMATION_POLL_INTERVAL: '500ms',
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
  });
  after(async () => {
    await stack?.close();
    await admin.raw(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.destroy();
  });

  const db = () => stack.infra.db;
  /**
   * A tier-1 customer's credit of 70,000.00 net: 20,000.00 reserved over the single-credit limit; the credit's entry id.
   * Paid at the sandbox unless `unknownToProvider`: the worker confirms what the sandbox knows, and reverses what it does
   * not once the confirmation window passes, which would release a reservation the test did not.
   */
  async function heldCredit(account: ProvisionedAccount, { unknownToProvider = false } = {}): Promise<string> {
    if (unknownToProvider)
      assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 70_050, fee: 50 }))).status, 200);
    else {
      const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
        body: { accountRef: account.AccountRef, amount: 70_050, fee: 50 },
      });
      assert.equal(paid.body.delivery.status, 200, paid.text);
    }
    return (await db()('ledger_reservations').where({ account_id: account.ID }).first('owner_id')).owner_id as string;
  }
  /** The reservations of these credits and their changes, as the ledger keeps them, without the reservations' own ids. */
  async function reservationsOf(owners: string[]) {
    const reservations = await db()('ledger_reservations')
      .whereIn('owner_id', owners)
      .orderBy('owner_id')
      .select(
        'owner_id',
        'tenant_id',
        'account_id',
        'kind',
        'reason',
        'amount',
        'posted',
        'released',
        'tier',
        'limit_amount',
        'expires_at',
        'created_at',
      );
    const changes = await db()('ledger_reservation_changes as c')
      .join('ledger_reservations as r', 'r.id', 'c.reservation_id')
      .whereIn('r.owner_id', owners)
      .orderBy('c.id')
      .select(
        'c.id',
        'r.owner_id',
        'c.tenant_id',
        'c.account_id',
        'c.outcome',
        'c.amount',
        'c.reason',
        'c.entry_id',
        'c.user_id',
        'c.note',
        'c.created_at',
      );
    return { reservations, changes };
  }

  it('moves every hold, release and return into reservations and their changes, and ledger:verify stays clean', async () => {
    const [open, released, reversed] = [
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
    ];
    const openCredit = await heldCredit(open);
    const releasedCredit = await heldCredit(released);
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const release = await call(stack.apiUrl, 'POST', `/auth/holds/${releasedCredit}/release`, {
      cookie: operator,
      body: { note: 'payslip' },
    });
    assert.equal(release.status, 200, release.text);
    // Reversed by the test at once, or by the worker first once the window for a payment the sandbox never saw
    // passes: one release as credit_reversed either way.
    const reversedCredit = await heldCredit(reversed, { unknownToProvider: true });
    await db().transaction((trx) => stack.services.postingEngine.reverse(trx, reversedCredit, 'provider did not confirm'));
    // A dynamic account's under-payment, held whole and returned to its payer by the worker's settlement.
    const dynamic = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '100.00', amountPolicy: 'exact', onMismatch: 'return' });
    const under = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: dynamic.AccountRef, amount: 60, fee: 0.5, senderAccountNumber: PAYER_ACCOUNT },
    });
    assert.equal(under.body.delivery.status, 200, under.text);
    await eventually(
      async () =>
        (await db()('dynamic_account_returns').where({ account_id: dynamic.ID }).first('status'))?.status === 'returned' ? true : null,
      { what: 'the return of the under-payment' },
    );
    const returnedCredit = (await db()('ledger_reservations').where({ account_id: dynamic.ID }).first('owner_id')).owner_id as string;
    const owners = [openCredit, releasedCredit, reversedCredit, returnedCredit];
    const before = await reservationsOf(owners);
    assert.deepEqual(
      before.changes.map((change) => [change.owner_id, change.outcome, change.reason]).sort(),
      [
        [releasedCredit, 'released', 'operator'],
        [reversedCredit, 'released', 'credit_reversed'],
        [returnedCredit, 'posted', null],
      ].sort(),
    );
    const tierRaise = uuidv7();

    await db().transaction(async (trx) => {
      // The holds named entries by foreign key, which only an unpartitioned ledger_entries can hold: the history goes
      // back to one table first, and to its months again after.
      await historyByMonthMigration.down(trx);
      await reservationsMigration.down(trx);
      // What a commit would check of the rows written: the returns' deferred references to their debits.
      await trx.raw('SET CONSTRAINTS ALL IMMEDIATE');
      // The holds as the code before reservations wrote them.
      const holds = await trx('ledger_holds').whereIn('entry_id', owners).select('entry_id', 'amount', 'released', 'limit_kind');
      assert.deepEqual(
        holds.map((hold) => [hold.entry_id, hold.amount, hold.released, hold.limit_kind]).sort(),
        [
          [openCredit, '2000000', '0', 'single_credit'],
          [releasedCredit, '2000000', '2000000', 'single_credit'],
          [reversedCredit, '2000000', '2000000', 'single_credit'],
          [returnedCredit, '5950', '5950', 'amount_mismatch'],
        ].sort(),
      );
      const [holdReturn] = await trx('ledger_hold_returns')
        .where({ entry_id: returnedCredit })
        .select('debit_entry_id', 'amount', 'user_id');
      const debit = before.changes.find((change) => change.outcome === 'posted')!.entry_id;
      assert.deepEqual(holdReturn, { debit_entry_id: debit, amount: '5950', user_id: null });
      assert.deepEqual(await trx('ledger_hold_releases').where({ entry_id: returnedCredit }).pluck('reason'), ['returned']);
      // A tier rise released part of the open hold, as the holds' code did: a release row, the hold's released
      // amount, the account's held balance and the customer's unheld balance in one transaction.
      await trx('ledger_hold_releases').insert({
        id: tierRaise,
        entry_id: openCredit,
        tenant_id: tenant.tenantId,
        account_id: open.ID,
        amount: 500_000,
        reason: 'tier_raised',
      });
      await trx('ledger_holds').where({ entry_id: openCredit }).increment('released', 500_000);
      await trx('virtual_accounts').where({ id: open.ID }).decrement('held_balance', 500_000);
      await trx('customers').where({ id: open.CustomerID }).increment('unheld_balance', 500_000);

      await reservationsMigration.up(trx);
      await historyByMonthMigration.up(trx);
      assert.deepEqual(await createLedgerVerificationRepo(trx).problems(), []);
    });

    const after = await reservationsOf(owners);
    assert.deepEqual(
      after.reservations,
      before.reservations.map((reservation) =>
        reservation.owner_id === openCredit ? { ...reservation, released: '500000' } : reservation,
      ),
      'every reservation as it was, the open one partly released',
    );
    const { created_at: _, ...tierRaised } = after.changes.find((change) => change.id === tierRaise)!;
    assert.deepEqual(tierRaised, {
      id: tierRaise,
      owner_id: openCredit,
      tenant_id: tenant.tenantId,
      account_id: open.ID,
      outcome: 'released',
      amount: '500000',
      reason: 'tier_raised',
      entry_id: null,
      user_id: null,
      note: null,
    });
    assert.deepEqual(
      after.changes.filter((change) => change.id !== tierRaise),
      before.changes,
      'every change as it was: the return, the release as returned and its return in one',
    );
    // The migrated ids are the holds' (their credits'): a reservation's change names it.
    assert.deepEqual(
      (await db()('ledger_reservations').whereIn('owner_id', owners).select('id', 'owner_id')).every((row) => row.id === row.owner_id),
      true,
    );
    const balance = (await call(stack.apiUrl, 'GET', `/v1/accounts/${open.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
    assert.deepEqual([balance.heldBalance, balance.reserved.kyc_limit], ['15000.00', '15000.00']);
    assert.deepEqual(JSON.parse((await runCli(databaseUrl, 'ledger:verify', '--json')).stdout).problems, []);
  });
});
