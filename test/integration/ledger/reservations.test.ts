import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { uuidv7 } from '../../../src/ids';
import { createReservations, expireDue } from '../../../src/ledger/reservations';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { reservedOf } from '../../helpers/reserved';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

describe('reservations: money set aside on an account', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const db = () => stack.infra.db;
  const balance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
  const settle = (account: ProvisionedAccount, amount: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey: tenant.apiKey, body: { amount, ...DESTINATION } });
  const verifyLedger = async () => (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;

  it('answers heldBalance beside the reserved money by kind, on the balance and on the dashboard, with what may be spent', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    // A tier-1 customer paid 70,000.00 net: 20,000.00 over the single-credit limit is reserved, provisional still.
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 70_050, fee: 50 }))).status, 200);
    const answered = await balance(account);
    assert.deepEqual(
      [answered.ledgerBalance, answered.heldBalance, answered.reserved],
      ['70000.00', '20000.00', reservedOf({ kyc_limit: '20000.00' })],
    );
    const viewer = await dashboardSession(stack, tenant.tenantId, 'viewer');
    const shown = (await call(stack.apiUrl, 'GET', `/auth/accounts/${account.AccountRef}`, { cookie: viewer })).body.balances;
    assert.deepEqual(
      [shown.heldBalance, shown.reserved, shown.settleable, shown.transferable],
      // Settling spends the ledger balance less what is reserved; a transfer only confirmed money less it (none yet).
      ['20000.00', reservedOf({ kyc_limit: '20000.00' }), '50000.00', '0.00'],
    );
    const found = (await call(stack.apiUrl, 'GET', `/auth/accounts?q=${account.AccountRef}`, { cookie: viewer })).body.accounts;
    assert.deepEqual(found[0].balances.reserved, reservedOf({ kyc_limit: '20000.00' }));
  });

  it('what an account may spend is one function of the database: the ledger balance less the reserved, less provisional money when asked', async () => {
    const spendable = async (ledger: number, reserved: number, pending: number, spendAvailable: boolean) =>
      Number(
        (await db().raw('SELECT ledger_spendable(?, ?, ?, ?) AS spendable', [ledger, reserved, pending, spendAvailable])).rows[0].spendable,
      );
    assert.deepEqual(
      [await spendable(10_000, 3_000, 5_000, false), await spendable(10_000, 3_000, 5_000, true), await spendable(-100, 0, 0, false)],
      [7_000, 2_000, -100],
    );
  });

  it('ledger:verify fails on a held balance that is not its open reservations, a reservation whose changes do not add up, and an undeclared kind', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 70_050, fee: 50 }))).status, 200);
    const reservation = await db()('ledger_reservations').where({ account_id: account.ID }).first('id', 'owner_id');
    const row = () => db()('ledger_reservations').where({ id: reservation.id });
    const problemsWith = async (plant: () => Promise<unknown>, undo: () => Promise<unknown>) => {
      await plant();
      try {
        return (await runCli('ledger:verify', '--json').then(
          () => assert.fail('ledger:verify passed with the fault planted'),
          (failed: { stdout: string }) => JSON.parse(failed.stdout),
        )) as { problems: Array<{ check: string; detail: string }> };
      } finally {
        await undo();
      }
    };

    // Released without a change recording it: the reservation's changes and the account's held balance disagree with it.
    const unrecorded = await problemsWith(
      () => row().update({ released: 1_000 }),
      () => row().update({ released: 0 }),
    );
    assert.deepEqual(
      unrecorded.problems
        .filter((problem) => problem.check === 'holds')
        .map((problem) => problem.detail)
        .sort(),
      [
        `stored held balance 2000000; open reservations 1999000`,
        `reservation ${reservation.id} (kyc_limit single_credit of ${reservation.owner_id}): amount 2000000 posted 0 released 1000, changes posted 0 released 0`,
      ].sort(),
    );
    const undeclared = await problemsWith(
      () => row().update({ kind: 'undeclared_kind' }),
      () => row().update({ kind: 'kyc_limit' }),
    );
    assert.deepEqual(
      undeclared.problems.map((problem) => [
        problem.check,
        problem.detail.startsWith(`reservation ${reservation.id} (undeclared_kind single_credit`),
      ]),
      [['holds', true]],
    );
    assert.deepEqual(await verifyLedger(), []);
  });

  it("ledger:verify fails on a release whose reason is not one its reservation's kind declares", async () => {
    // Two accounts, each with a KYC-held payment of which an operator released 1,000.00 (a person's words in the note).
    const released = async () => {
      const account = await provisionAccount(stack, tenant.apiKey);
      assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 70_050, fee: 50 }))).status, 200);
      const { id: reservationId } = await db()('ledger_reservations').where({ account_id: account.ID }).first('id');
      await db().transaction((trx) =>
        createReservations(trx).release(account.ID, [
          { reservationId, kind: 'kyc_limit', amount: 1_000_00n, reason: 'operator', userId: null, note: 'a person says why' },
        ]),
      );
      const change = await db()('ledger_reservation_changes').where({ reservation_id: reservationId }).first('id', 'reason', 'note');
      assert.deepEqual([change.reason, change.note], ['operator', 'a person says why']);
      return { reservationId, changeId: change.id as string };
    };
    const undeclared = await released();
    const otherKinds = await released();
    const reservation = (id: string) => db()('ledger_reservations').where({ id });
    const change = (id: string) => db()('ledger_reservation_changes').where({ id });

    // A reason no kind declares; and one another kind declares (a tier rise releases KYC-limit money, not a mismatch).
    await change(undeclared.changeId).update({ reason: 'lifted' });
    await reservation(otherKinds.reservationId).update({ kind: 'payment_mismatch', reason: 'amount_mismatch' });
    await change(otherKinds.changeId).update({ reason: 'tier_raised' });
    try {
      const { problems } = (await runCli('ledger:verify', '--json').then(
        () => assert.fail('ledger:verify passed with the faults planted'),
        (failed: { stdout: string }) => JSON.parse(failed.stdout),
      )) as { problems: Array<{ check: string; detail: string }> };
      assert.deepEqual(
        problems.map((problem) => [problem.check, problem.detail]).sort(),
        [
          [
            'holds',
            `release ${undeclared.changeId} of reservation ${undeclared.reservationId} (kyc_limit): reason lifted is not one its kind declares`,
          ],
          [
            'holds',
            `release ${otherKinds.changeId} of reservation ${otherKinds.reservationId} (payment_mismatch): reason tier_raised is not one its kind declares`,
          ],
        ].sort(),
      );
    } finally {
      await change(undeclared.changeId).update({ reason: 'operator' });
      await reservation(otherKinds.reservationId).update({ kind: 'kyc_limit', reason: 'single_credit' });
      await change(otherKinds.changeId).update({ reason: 'operator' });
    }
    assert.deepEqual(await verifyLedger(), []);
  });

  it("reserve, release, post and ofOwner take the customer's lock and then the account's themselves, as every posting does", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 70_050, fee: 50 }))).status, 200);
    const held = await db()('ledger_reservations').where({ account_id: account.ID }).first('id', 'owner_id', 'tenant_id');
    const { customer_id: customerId } = await db()('virtual_accounts').where({ id: account.ID }).first('customer_id');
    const rolledBack = new Error('rolled back');
    // With the customer's row locked elsewhere, the operation waits for it before it touches the account: a writer
    // that took the account's row first (then the customer's) could deadlock with a posting, which takes them the
    // other way. Each operation runs in a transaction of its own, rolled back.
    const accountFreeWhileCustomerWaited = async (operation: (reservations: ReturnType<typeof createReservations>) => Promise<unknown>) => {
      const holder = await db().transaction();
      await holder.raw('SELECT id FROM customers WHERE id = ? FOR NO KEY UPDATE', [customerId]);
      let pid: number | undefined;
      const running = db()
        .transaction(async (trx) => {
          pid = (await trx.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
          await operation(createReservations(trx));
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
      try {
        await eventually(
          async () =>
            pid !== undefined &&
            (await db().raw('SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?', [pid])).rows[0]?.wait_event_type === 'Lock',
          { what: 'the operation waiting for a lock' },
        );
        return await db().transaction((trx) =>
          trx.raw('SELECT id FROM virtual_accounts WHERE id = ? FOR NO KEY UPDATE NOWAIT', [account.ID]).then(
            () => true,
            (error: { code?: string }) => {
              if (error.code === '55P03') return false;
              throw error;
            },
          ),
        );
      } finally {
        await holder.rollback();
        await running;
      }
    };

    assert.equal(
      await accountFreeWhileCustomerWaited((reservations) =>
        reservations.reserve({
          accountId: account.ID,
          kind: 'payment_mismatch',
          reason: 'amount_mismatch',
          ownerId: held.owner_id,
          amount: 1n,
        }),
      ),
      true,
      'reserve',
    );
    assert.equal(
      await accountFreeWhileCustomerWaited((reservations) =>
        reservations.release(account.ID, [
          { reservationId: held.id, kind: 'kyc_limit', amount: 1n, reason: 'operator', userId: null, note: null },
        ]),
      ),
      true,
      'release',
    );
    assert.equal(
      await accountFreeWhileCustomerWaited((reservations) =>
        reservations.post(account.ID, { reservationId: held.id, entryId: uuidv7(), amount: 1n, userId: null, note: null }),
      ),
      true,
      'post',
    );
    assert.equal(
      await accountFreeWhileCustomerWaited(async (reservations) =>
        assert.deepEqual(await reservations.ofOwner('kyc_limit', held.owner_id), {
          reservationId: held.id,
          tenantId: held.tenant_id,
          accountId: account.ID,
          amount: 20_000_00n,
          open: 20_000_00n,
        }),
      ),
      true,
      'ofOwner',
    );
    assert.equal(await db().transaction((trx) => createReservations(trx).ofOwner('kyc_limit', uuidv7())), undefined);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('expireDue releases what is still reserved once its time has passed, as expired, and nothing before', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const { id: credit } = await fundAccount(stack, account.ID, 10_000_00n);
    const now = new Date();
    const [due, later] = await db().transaction(async (trx) => {
      await stack.services.postingEngine.lockAccounts(trx, [account.ID]);
      const reservations = createReservations(trx);
      return [
        await reservations.reserve({
          accountId: account.ID,
          kind: 'kyc_limit',
          reason: 'single_credit',
          ownerId: credit,
          amount: 3_000_00n,
          tier: 1,
          limitAmount: 0n,
          expiresAt: new Date(now.getTime() - 1_000),
        }),
        await reservations.reserve({
          accountId: account.ID,
          kind: 'payment_mismatch',
          reason: 'amount_mismatch',
          ownerId: credit,
          amount: 2_000_00n,
          tier: 1,
          limitAmount: 0n,
          expiresAt: new Date(now.getTime() + 3_600_000),
        }),
      ];
    });
    assert.deepEqual([(await balance(account)).heldBalance, (await balance(account)).reserved.kyc_limit], ['5000.00', '3000.00']);
    const refused = await settle(account, '5000.01');
    assert.deepEqual([refused.status, refused.body.error], [400, 'insufficient funds']);

    const expired = await db().transaction((trx) => expireDue(trx, now));
    assert.deepEqual(
      expired.map((reservation) => [reservation.reservationId, reservation.kind, reservation.amount]),
      [[due, 'kyc_limit', 3_000_00n]],
    );
    assert.deepEqual(await db().transaction((trx) => expireDue(trx, now)), [], 'an expired reservation expires once');
    const changes = await db()('ledger_reservation_changes')
      .whereIn('reservation_id', [due, later])
      .select('reservation_id', 'outcome', 'amount', 'reason');
    assert.deepEqual(changes, [{ reservation_id: due, outcome: 'expired', amount: '300000', reason: null }]);
    const after = await balance(account);
    assert.deepEqual([after.heldBalance, after.reserved], ['2000.00', reservedOf({ payment_mismatch: '2000.00' })]);
    assert.equal((await settle(account, '8000.00')).status, 202);
    assert.deepEqual(await verifyLedger(), []);
  });
});
