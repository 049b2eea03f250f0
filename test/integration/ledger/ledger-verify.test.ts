import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Db } from '../../../src/db';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { magicAccountNumber } from '../../helpers/sandbox-values';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

interface Problem {
  check: string;
  accountRef: string | null;
  detail: string;
}

/** A payer whose name the sandbox's name enquiry gives as the payment names them (its default sender name). */
const PAYER_ACCOUNT = '0123456789';
const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

/** `ledger:verify --json`: its exit code and the problems it found. */
async function verify(): Promise<{ code: number; problems: Problem[] }> {
  try {
    const { stdout } = await runCli('ledger:verify', '--json');
    return { code: 0, problems: (JSON.parse(stdout) as { problems: Problem[] }).problems };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    assert.ok(failed.stdout, `ledger:verify exited ${failed.code} without a report: ${failed.stderr}`);
    return { code: failed.code, problems: (JSON.parse(failed.stdout) as { problems: Problem[] }).problems };
  }
}

/**
 * The checks `ledger:verify` runs (its repository), in this process: the command's exit code and JSON are held to
 * them by the first two tests, and each run of the command is a process that loads the whole service (1 to 3 s).
 */
async function verifiedHere(db: Db): Promise<{ code: number; problems: Problem[] }> {
  const problems = await createLedgerVerificationRepo(db).problems();
  return { code: problems.length > 0 ? 1 : 0, problems };
}

/**
 * The problems ledger:verify reports (exiting 1) while `plant` holds, by `check` (the checks in this process unless
 * the command is asked for); `undo` puts the data back whatever happens.
 */
async function reportedWith(
  check: () => Promise<{ code: number; problems: Problem[] }>,
  plant: () => Promise<unknown>,
  undo: () => Promise<unknown>,
): Promise<Problem[]> {
  await plant();
  try {
    const { code, problems } = await check();
    assert.equal(code, 1, `ledger:verify passed with the fault planted: ${JSON.stringify(problems)}`);
    return problems;
  } finally {
    await undo();
  }
}

/** Each problem's check, and whether its detail names every id of `ids` (in order of the problems). */
const named = (problems: Problem[], ...ids: string[]) =>
  problems.map((problem) => [problem.check, ids.every((id) => problem.detail.includes(id))]);

// The records that name ledger entries, held to them by ledger:verify: each customer's payouts of the day, each
// transfer's two entries, each split move's transfer and its take-back, each dynamic account's return. Real data made through the
// API and the worker verifies clean; a fault planted in the database (and taken out again) fails it, naming the ids.
describe('ledger:verify: the records that name ledger entries', () => {
  let stack: Stack;
  let tenant: TestTenant;
  /** Customer A's two accounts, and another customer's. */
  let a1: ProvisionedAccount;
  let a2: ProvisionedAccount;
  let b1: ProvisionedAccount;
  /** A split rule's account: a part moved to `seller`, a part to a suspended customer's account not moved. */
  let shop: ProvisionedAccount;
  let dynamic: ProvisionedAccount;
  /** Another tenant's split account: two payments split 50% to a seller, both compensated, their parts taken back. */
  let splitShop: ProvisionedAccount;
  let toOtherCustomer: string;
  let betweenOwnAccounts: string;
  let paidSettlement: string;

  const db = () => stack.infra.db;
  /** The checks of ledger:verify on the test database, in this process. */
  const here = () => verifiedHere(db());
  const transfer = async (from: ProvisionedAccount, to: ProvisionedAccount, amount: string): Promise<string> => {
    const made = await call(stack.apiUrl, 'POST', `/v1/accounts/${from.AccountRef}/transfers`, {
      apiKey: tenant.apiKey,
      body: { toAccountRef: to.AccountRef, amount },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    assert.equal(made.status, 201, made.text);
    return made.body.id as string;
  };
  const settle = async (from: ProvisionedAccount, amount: string, destination = DESTINATION): Promise<string> => {
    const made = await call(stack.apiUrl, 'POST', `/v1/accounts/${from.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount, ...destination },
    });
    assert.equal(made.status, 202, made.text);
    return made.body.merchantTxRef as string;
  };
  const settlementStatus = async (merchantTxRef: string) =>
    (await db()('settlements').where({ merchant_tx_ref: merchantTxRef }).first('status')).status as string;

  before(async () => {
    stack = await startStack(
      {
        CONFIRMATION_WINDOW: '3s',
        CONFIRMATION_POLL_INTERVAL: '500ms',
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
        RECONCILIATION_GRACE: '0ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
    const customerA = `cust-${randomUUID()}`;
    a1 = await provisionAccount(stack, tenant.apiKey, { externalRef: customerA });
    a2 = await provisionAccount(stack, tenant.apiKey, { externalRef: customerA });
    b1 = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, a1.ID, 100_000n);
    toOtherCustomer = await transfer(a1, b1, '100.00');
    betweenOwnAccounts = await transfer(a1, a2, '50.00');
    paidSettlement = await settle(a1, '200.00');
    const failedSettlement = await settle(a1, '10.00', { bankCode: '058', accountNumber: magicAccountNumber('failsEverySubmission') });

    shop = await provisionAccount(stack, tenant.apiKey);
    const seller = await provisionAccount(stack, tenant.apiKey);
    const dormant = await provisionAccount(stack, tenant.apiKey);
    const rule = await call(stack.apiUrl, 'PUT', `/v1/accounts/${shop.AccountRef}/split-rule`, {
      apiKey: tenant.apiKey,
      body: {
        parts: [
          { toAccountRef: dormant.AccountRef, amount: '1.00' },
          { toAccountRef: seller.AccountRef, percent: 50 },
        ],
        feeBearer: 'split',
      },
    });
    assert.equal(rule.status, 200, rule.text);
    await db()('customers').where({ id: dormant.CustomerID }).update({ status: 'suspended' });
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: shop.AccountRef, amount: 1000 } });
    assert.equal(paid.body.delivery.status, 200, paid.text);

    dynamic = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '100.00', amountPolicy: 'exact', onMismatch: 'return' });
    const under = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: dynamic.AccountRef, amount: 60, fee: 0.5, senderAccountNumber: PAYER_ACCOUNT },
    });
    assert.equal(under.body.delivery.status, 200, under.text);

    await eventually(async () => ((await db()('split_moves').where({ from_account_id: shop.ID })).length === 2 ? true : null), {
      what: 'the split at confirmation',
    });
    await eventually(
      async () =>
        (await db()('dynamic_account_returns').where({ account_id: dynamic.ID }).first('status'))?.status === 'returned' ? true : null,
      { what: 'the return of the under-payment' },
    );
    await eventually(async () => ((await settlementStatus(failedSettlement)) === 'failed' ? true : null), { what: 'a failed payout' });
    await compensateSplitPayments();
  });

  /**
   * Two payments to another tenant's shop, each split 50% to a seller; the provider then refunds both, reconciliation
   * finds them and the operator compensates each: its part comes back from the seller in its compensation's transaction.
   */
  async function compensateSplitPayments(): Promise<void> {
    const owner = await createTenant(stack, 'Split Tenant');
    const from = new Date(Date.now() - 1_000);
    splitShop = await provisionAccount(stack, owner.apiKey);
    const seller = await provisionAccount(stack, owner.apiKey);
    const rule = await call(stack.apiUrl, 'PUT', `/v1/accounts/${splitShop.AccountRef}/split-rule`, {
      apiKey: owner.apiKey,
      body: { parts: [{ toAccountRef: seller.AccountRef, percent: 50 }], feeBearer: 'split' },
    });
    assert.equal(rule.status, 200, rule.text);
    const payments: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
        body: { accountRef: splitShop.AccountRef, amount: 1025, fee: 25 },
      });
      assert.equal(paid.body.delivery.status, 200, paid.text);
      payments.push(paid.body.transactionId as string);
    }
    await eventually(
      async () =>
        (await db()('split_moves').where({ from_account_id: splitShop.ID }).whereNotNull('transfer_id')).length === 2 ? true : null,
      {
        what: 'both payments split at confirmation',
      },
    );
    for (const payment of payments) {
      const refunded = await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${payment}/status`, { body: { status: 'REFUND' } });
      assert.equal(refunded.status, 200, refunded.text);
    }
    const started = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', {
      apiKey: owner.apiKey,
      body: { from: from.toISOString() },
    });
    assert.equal(started.status, 202, started.text);
    const run = await eventually(
      async () => {
        const detail = await call(stack.apiUrl, 'GET', `/v1/reconciliation/runs/${started.body.run.ID}`, { apiKey: owner.apiKey });
        return ['succeeded', 'failed'].includes(detail.body.run?.Status) ? detail.body : null;
      },
      { what: 'the reconciliation run' },
    );
    const findings = (run.exceptions as Array<{ ID: string; Kind: string }>).filter((one) => one.Kind === 'credit_failed_at_provider');
    assert.equal(findings.length, 2, JSON.stringify(run.exceptions));
    for (const finding of findings)
      await stack.services.reconciliation.compensate({ via: 'cli', tenantId: owner.tenantId }, finding.ID, 'payer bank recalled it');
  }
  after(() => stack.close());

  it('passes on the data the API and the worker made: payouts of the day, transfers, split moves and a return', async () => {
    // Customer A's day: the transfer to another customer and both settlements (the failed one too), not the
    // transfer between its own accounts; the dynamic account's return to its payer counts toward nothing.
    const dayOf = async (account: ProvisionedAccount) =>
      (await db()('customers').where({ id: account.CustomerID }).first('debits_day_total')).debits_day_total as string;
    assert.equal(await dayOf(a1), '31000');
    assert.equal(await dayOf(dynamic), '0');
    const moves = await db()('split_moves').where({ from_account_id: shop.ID }).orderBy('position');
    assert.deepEqual(
      moves.map((move: { transfer_id: string | null }) => move.transfer_id !== null),
      [false, true],
      'one part not moved, one moved',
    );
    const takenBack = await db()('split_moves').where({ from_account_id: splitShop.ID }).whereNotNull('taken_back_entry_id');
    assert.equal(takenBack.length, 2, 'both compensated payments had their part taken back');
    assert.deepEqual(await verify(), { code: 0, problems: [] });
  });

  it("fails on a customer's payouts of the day that its payouts do not add up to, naming the customer", async () => {
    const customer = () => db()('customers').where({ id: a1.CustomerID });
    const short = await reportedWith(
      verify,
      () => customer().decrement('debits_day_total', 1),
      () => customer().increment('debits_day_total', 1),
    );
    assert.deepEqual(named(short, a1.CustomerID, 'payouts of', '30999', 'totalling 31000'), [['payout_day_totals', true]]);
    // Counted in another day than the one its payouts were made in.
    const yesterday = await reportedWith(
      here,
      () => customer().update({ debits_day: db().raw('debits_day - 1') }),
      () => customer().update({ debits_day: db().raw('debits_day + 1') }),
    );
    assert.deepEqual(named(yesterday, a1.CustomerID), [['payout_day_totals', true]]);
    assert.deepEqual(await here(), { code: 0, problems: [] });
  });

  it('fails on a transfer whose entries do not match it, and on transfer entries no transfer names', async () => {
    const row = () => db()('internal_transfers').where({ id: toOtherCustomer });
    const { debit_entry_id: debit, credit_entry_id: credit } = await row().first('debit_entry_id', 'credit_entry_id');
    const amount = await reportedWith(
      here,
      () => row().increment('amount', 1),
      () => row().decrement('amount', 1),
    );
    assert.deepEqual(named(amount, toOtherCustomer, `the debit entry ${debit} is of 10000`, `the credit entry ${credit} is of 10000`), [
      ['transfer_entries', true],
    ]);
    const account = await reportedWith(
      here,
      () => row().update({ to_account_id: a2.ID }),
      () => row().update({ to_account_id: b1.ID }),
    );
    assert.deepEqual(named(account, toOtherCustomer, `the credit entry ${credit} is on account ${b1.ID}`), [['transfer_entries', true]]);
    const swapped = await reportedWith(
      here,
      () => row().update({ debit_entry_id: credit, credit_entry_id: debit }),
      () => row().update({ debit_entry_id: debit, credit_entry_id: credit }),
    );
    // The entries named the wrong way round, and so the transfer's debit named as no transfer's debit.
    assert.deepEqual(
      swapped.map((problem) => problem.check),
      ['transfer_entries', 'transfer_entries'],
    );
    const [wrongWay, noTransfers] = swapped[0]!.detail.includes(toOtherCustomer) ? swapped : [swapped[1]!, swapped[0]!];
    assert.match(
      wrongWay!.detail,
      new RegExp(`the debit entry ${credit} is a transfer credit.*the credit entry ${debit} is a transfer debit`),
    );
    assert.match(noTransfers!.detail, new RegExp(`transfer debit ${debit} .* is no transfer's`));

    const own = await db()('internal_transfers').where({ id: betweenOwnAccounts }).first();
    const gone = await reportedWith(
      here,
      () => db()('internal_transfers').where({ id: betweenOwnAccounts }).delete(),
      () => db()('internal_transfers').insert(own),
    );
    assert.deepEqual(named(gone, own.debit_entry_id, own.transaction_id), [['transfer_entries', true]]);
    assert.deepEqual(await here(), { code: 0, problems: [] });
  });

  it('fails on a split move its transfer does not match, a part not moved without a reason, and a split transfer no move names', async () => {
    const [notMoved, moved] = await db()('split_moves').where({ from_account_id: shop.ID }).orderBy('position');
    const move = () => db()('split_moves').where({ payment_entry_id: moved.payment_entry_id, position: moved.position });
    const amount = await reportedWith(
      here,
      () => move().decrement('amount', 1),
      () => move().increment('amount', 1),
    );
    assert.deepEqual(named(amount, moved.payment_entry_id, moved.transfer_id, `moves ${moved.amount}`), [['split_moves', true]]);

    const splitTransfer = () => db()('internal_transfers').where({ id: moved.transfer_id });
    const { split_of_payment: payment } = await splitTransfer().first('split_of_payment');
    const marked = await reportedWith(
      here,
      () => splitTransfer().update({ split_of_payment: 'another payment' }),
      () => splitTransfer().update({ split_of_payment: payment }),
    );
    assert.deepEqual(named(marked, moved.transfer_id, 'is marked the split of payment another payment'), [['split_moves', true]]);

    const part = () => db()('split_moves').where({ payment_entry_id: notMoved.payment_entry_id, position: notMoved.position });
    const blank = await reportedWith(
      here,
      () => part().update({ not_moved_reason: ' ' }),
      () => part().update({ not_moved_reason: notMoved.not_moved_reason }),
    );
    assert.deepEqual(named(blank, notMoved.payment_entry_id, `part ${notMoved.position}: not moved, and no reason`), [
      ['split_moves', true],
    ]);

    const unnamed = await reportedWith(
      here,
      () => move().update({ transfer_id: null, not_moved_reason: 'planted' }),
      () => move().update({ transfer_id: moved.transfer_id, not_moved_reason: null }),
    );
    assert.deepEqual(named(unnamed, `split transfer ${moved.transfer_id}`, 'named by 0 split moves'), [['split_moves', true]]);
    assert.deepEqual(await here(), { code: 0, problems: [] });
  });

  it('fails on a split part taken back that names no take-back of it, one named twice, and a compensated payment whose part was not taken back', async () => {
    const [first, second] = await db()('split_moves').where({ from_account_id: splitShop.ID }).orderBy('payment_entry_id');
    const move = (which: { payment_entry_id: string }) => db()('split_moves').where({ payment_entry_id: which.payment_entry_id });
    const takeBack = await db()('ledger_entries').where({ id: first.taken_back_entry_id }).first();
    const transfer = await db()('internal_transfers').where({ id: first.transfer_id }).first();
    const compensation = await db()('ledger_entries').where({ reverses_entry_id: first.payment_entry_id, kind: 'adjustment' }).first();
    const shopsCredit = await db()('ledger_entries').where({ reverses_entry_id: transfer.debit_entry_id, kind: 'adjustment' }).first();
    assert.deepEqual(
      [takeBack.kind, takeBack.direction, takeBack.reverses_entry_id, takeBack.transaction_id, shopsCredit.transaction_id],
      ['adjustment', 'debit', transfer.credit_entry_id, compensation.transaction_id, compensation.transaction_id],
    );
    const restore = (which: { payment_entry_id: string; taken_back_entry_id: string }) =>
      move(which).update({ taken_back_entry_id: which.taken_back_entry_id });
    /** The problems are split_take_backs ones, one matching each pattern. */
    const each = (problems: Problem[], ...patterns: RegExp[]) => {
      assert.deepEqual(
        problems.map((problem) => problem.check),
        patterns.map(() => 'split_take_backs'),
        JSON.stringify(problems),
      );
      for (const pattern of patterns)
        assert.equal(problems.filter((problem) => pattern.test(problem.detail)).length, 1, `${pattern} in ${JSON.stringify(problems)}`);
    };
    const unrecorded = (debit: string, moves: number) =>
      new RegExp(`^adjustment debit ${debit} answers the credit .* of ${moves} split moves$`);
    const creditUnrecorded = (credit: string, transferId: string) =>
      new RegExp(`^adjustment credit ${credit} answers the debit .* of transfer ${transferId}, and no split move records a take-back`);

    // Cleared: the seller's debit is no move's take-back, the shop's credit answers a part no move took back, and the
    // compensated payment kept a part.
    each(
      await reportedWith(
        here,
        () => move(first).update({ taken_back_entry_id: null }),
        () => restore(first),
      ),
      unrecorded(takeBack.id, 0),
      creditUnrecorded(shopsCredit.id, transfer.id),
      new RegExp(
        `^payment entry ${first.payment_entry_id} was compensated \\(entry ${compensation.id}\\) but its part ${first.position} .*transfer ${transfer.id}\\) was not taken back$`,
      ),
    );

    // Pointed at the shop's own credit: not the seller's debit answering the transfer's credit, and the seller's debit
    // recorded by no move.
    each(
      await reportedWith(
        here,
        () => move(first).update({ taken_back_entry_id: shopsCredit.id }),
        () => restore(first),
      ),
      new RegExp(
        `^payment entry ${first.payment_entry_id}, part ${first.position} .*, taken back: its take-back entry ${shopsCredit.id} is a confirmed adjustment credit, on account ${splitShop.ID}, answering entry ${transfer.debit_entry_id}, not the transfer's credit ${transfer.credit_entry_id}$`,
      ),
      unrecorded(takeBack.id, 0),
    );

    // Both moves naming the first payment's take-back: the second's answers another transfer, in another transaction
    // than its compensation and its shop's credit; the first's take-back is named twice, the second's never.
    const [secondTransfer, secondCompensation] = [
      await db()('internal_transfers').where({ id: second.transfer_id }).first(),
      await db()('ledger_entries').where({ reverses_entry_id: second.payment_entry_id, kind: 'adjustment' }).first(),
    ];
    const secondShopsCredit = await db()('ledger_entries')
      .where({ reverses_entry_id: secondTransfer.debit_entry_id, kind: 'adjustment' })
      .first();
    each(
      await reportedWith(
        here,
        () => move(second).update({ taken_back_entry_id: first.taken_back_entry_id }),
        () => restore(second),
      ),
      new RegExp(
        `^payment entry ${second.payment_entry_id}, part ${second.position} .*: its take-back entry ${takeBack.id} is answering entry ${transfer.credit_entry_id}, not the transfer's credit ${secondTransfer.credit_entry_id}, in transaction ${takeBack.transaction_id}, not that of the compensation ${secondCompensation.id} \\(${secondCompensation.transaction_id}\\); the splitting account's credit ${secondShopsCredit.id} is in transaction ${secondShopsCredit.transaction_id}, not the take-back's ${takeBack.transaction_id}$`,
      ),
      unrecorded(takeBack.id, 2),
      unrecorded(second.taken_back_entry_id, 0),
      creditUnrecorded(secondShopsCredit.id, secondTransfer.id),
    );
    assert.deepEqual(await here(), { code: 0, problems: [] });
  });

  it("fails on a dynamic account's return that names another payout, a service's return not recorded, and a return's reservation posted by no settlement debit", async () => {
    const returned = await db()('dynamic_account_returns').where({ account_id: dynamic.ID }).first();
    const row = () => db()('dynamic_account_returns').where({ entry_id: returned.entry_id });
    const otherPayout = await reportedWith(
      here,
      () => row().update({ merchant_tx_ref: paidSettlement }),
      () => row().update({ merchant_tx_ref: returned.merchant_tx_ref }),
    );
    assert.deepEqual(named(otherPayout, returned.entry_id, paidSettlement, 'is not the payout of the return'), [
      ['dynamic_account_returns', true],
    ]);

    const unrecorded = await reportedWith(
      here,
      () => row().delete(),
      () => db()('dynamic_account_returns').insert(returned),
    );
    assert.deepEqual(named(unrecorded, returned.entry_id, 'returned by the service', 'not recorded'), [['dynamic_account_returns', true]]);

    // The reservation's posting recorded as a release instead: posted by no settlement debit.
    const reservation = await db()('ledger_reservations').where({ owner_id: returned.entry_id }).first('id');
    const posting = () => db()('ledger_reservation_changes').where({ reservation_id: reservation.id });
    const { entry_id: debitEntryId } = await posting().first('entry_id');
    const unlinked = await reportedWith(
      here,
      () => posting().update({ outcome: 'released', reason: 'operator', entry_id: null }),
      () => posting().update({ outcome: 'posted', reason: null, entry_id: debitEntryId }),
    );
    const about = (check: string) => unlinked.filter((problem) => problem.check === check);
    assert.deepEqual(named(about('holds'), reservation.id, returned.entry_id, 'changes posted 0'), [['holds', true]]);
    assert.deepEqual(named(about('dynamic_account_returns'), returned.entry_id, 'the held money was not posted by a return'), [
      ['dynamic_account_returns', true],
    ]);
    assert.deepEqual(await here(), { code: 0, problems: [] });
  });
});
