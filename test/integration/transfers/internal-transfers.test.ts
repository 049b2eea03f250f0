import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, provisionAccount, SPEC_ENTRY_FIELDS, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver } from '../../helpers/receiver';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

/** Kobo from a naira string, to compare amounts exactly. */
const kobo = (naira: string) => BigInt(naira.replace('.', ''));

describe('transfers between accounts of a tenant', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    // Settlements spend the ledger balance (provisional money included): transfers still spend only confirmed money.
    stack = await startStack({ EVENT_DISPATCH_INTERVAL: '100ms', SETTLEMENT_FUNDS: 'ledger' }, { worker: true });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const transfer = (
    from: ProvisionedAccount | string,
    body: Record<string, unknown>,
    options: { key?: string | null; apiKey?: string } = {},
  ) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${typeof from === 'string' ? from : from.AccountRef}/transfers`, {
      apiKey: options.apiKey ?? tenant.apiKey,
      body,
      headers: options.key === null ? {} : { 'Idempotency-Key': options.key ?? randomUUID() },
    });

  async function balance(account: ProvisionedAccount, apiKey = tenant.apiKey) {
    const response = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey });
    assert.equal(response.status, 200, response.text);
    return response.body as { ledgerBalance: string; availableBalance: string; heldBalance: string };
  }

  /** A new customer's account (each its own customer unless `externalRef` is shared). */
  const account = (externalRef = `cust-${randomUUID()}`, apiKey = tenant.apiKey) => provisionAccount(stack, apiKey, { externalRef });

  const transfersOf = (tenantId: string) =>
    stack.infra.db('internal_transfers').where({ tenant_id: tenantId }).count<{ count: string }[]>();

  it('audits a transfer made with an API key once, as the key, in its own transaction (never a replay or a refusal)', async () => {
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 100_000n);
    const key = randomUUID();
    const made = await transfer(from, { toAccountRef: to.AccountRef, amount: '12.34', narration: 'audited' }, { key });
    assert.equal(made.status, 201, made.text);
    assert.equal((await transfer(from, { toAccountRef: to.AccountRef, amount: '12.34', narration: 'audited' }, { key })).status, 201);
    assert.equal((await transfer(from, { toAccountRef: to.AccountRef, amount: '5000.00' })).status, 400);
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, action: 'transfer.made' })
      .whereRaw("detail->>'fromAccountRef' = ?", [from.AccountRef])
      .select('actor', 'user_id', 'target_type', 'target_id', 'detail');
    assert.deepEqual(audit, [
      {
        actor: 'API key',
        user_id: null,
        target_type: 'transfer',
        target_id: made.body.id,
        detail: {
          fromAccountRef: from.AccountRef,
          toAccountRef: to.AccountRef,
          amount: '12.34',
          narration: 'audited',
          idempotencyKey: key,
        },
      },
    ]);
  });

  it('moves the amount to the kobo in one ledger transaction, readable by its id, and both statements show it', async () => {
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 100_000n);
    const response = await transfer(from, { toAccountRef: to.AccountRef, amount: '250.57', narration: 'rent share' });
    assert.equal(response.status, 201, response.text);
    const id = response.body.id as string;
    assert.deepEqual(
      { ...response.body, id: undefined, createdAt: undefined },
      {
        id: undefined,
        fromAccountRef: from.AccountRef,
        toAccountRef: to.AccountRef,
        amount: '250.57',
        narration: 'rent share',
        status: 'completed',
        source: 'api',
        splitOfPayment: null,
        createdAt: undefined,
      },
    );
    assert.equal((await balance(from)).ledgerBalance, '749.43');
    assert.equal((await balance(to)).ledgerBalance, '250.57');
    assert.equal((await balance(to)).availableBalance, '250.57', 'the credit is confirmed at once');

    const read = await call(stack.apiUrl, 'GET', `/v1/transfers/internal/${id}`, { apiKey: tenant.apiKey });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, response.body);

    const debit = (await statement(stack, tenant.apiKey, from.AccountRef)).body.lines.at(-1).entry;
    const credit = (await statement(stack, tenant.apiKey, to.AccountRef)).body.lines.at(-1).entry;
    assert.deepEqual(
      [debit.Kind, debit.Direction, debit.Amount, debit.Status, debit.Narration, debit.CounterpartAccountRef],
      ['transfer', 'debit', '250.57', 'confirmed', 'rent share', to.AccountRef],
    );
    assert.deepEqual(
      [credit.Kind, credit.Direction, credit.Amount, credit.Status, credit.Narration, credit.CounterpartAccountRef],
      ['transfer', 'credit', '250.57', 'confirmed', 'rent share', from.AccountRef],
    );
    // A transfer's line adds the other account, and only it; a payment's line is exactly the spec's.
    assert.deepEqual(Object.keys(debit), [...SPEC_ENTRY_FIELDS, 'CounterpartAccountRef']);
    assert.equal(debit.ProviderTxnRef, id);
    const fundingLine = (await statement(stack, tenant.apiKey, from.AccountRef)).body.lines[0].entry;
    assert.deepEqual(Object.keys(fundingLine), SPEC_ENTRY_FIELDS);

    // The dashboard's statement and its CSV show the same, and the Books page its transaction: customer A -X, customer B +X, nothing else.
    const cookie = await dashboardSession(stack, tenant.tenantId, 'viewer');
    const dashboardLine = (await call(stack.apiUrl, 'GET', `/auth/accounts/${from.AccountRef}/statement`, { cookie })).body.lines.at(
      -1,
    ).entry;
    assert.equal(dashboardLine.CounterpartAccountRef, to.AccountRef);
    const csv = await call(stack.apiUrl, 'GET', `/auth/accounts/${to.AccountRef}/statement.csv`, { cookie });
    assert.equal(csv.status, 200, csv.text);
    const [header, line] = csv.text.trim().split('\r\n');
    assert.ok(header!.endsWith(',Counterpart account,Expected amount,Amount received,Variance,Mismatch action'), header);
    // An ordinary account's line judges nothing: the four judgement cells after the other account are empty.
    assert.ok(line!.includes(',transfer,credit,confirmed,250.57,') && line!.endsWith(`,"${from.AccountRef}",,,,`), line);
    const books = await call(stack.apiUrl, 'GET', `/auth/ledger/transactions?transaction=${dashboardLine.TransactionId}`, { cookie });
    assert.equal(books.status, 200);
    const [journal] = books.body.transactions;
    assert.deepEqual(
      [
        journal.kind,
        journal.reference,
        [...journal.postings].sort((a, b) => (a.amount < b.amount ? -1 : 1)).map((p) => [p.account, p.accountRef, p.amount]),
      ],
      [
        'transfer',
        id,
        [
          ['customer', from.AccountRef, '-250.57'],
          ['customer', to.AccountRef, '250.57'],
        ],
      ],
    );
  });

  it("lists an account's transfers in both directions, newest first, paged", async () => {
    const mine = await account();
    const other = await account();
    await fundAccount(stack, mine.ID, 10_000n);
    const made: string[] = [];
    for (const [from, to] of [
      [mine, other],
      [other, mine],
      [mine, other],
    ] as const)
      made.push((await transfer(from, { toAccountRef: to.AccountRef, amount: '1.00' })).body.id);
    const first = await call(stack.apiUrl, 'GET', `/v1/accounts/${mine.AccountRef}/transfers?limit=2`, { apiKey: tenant.apiKey });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.transfers.map((one: { id: string }) => one.id),
      [made[2], made[1]],
    );
    assert.equal(first.body.pagination.hasMore, true);
    const second = await call(
      stack.apiUrl,
      'GET',
      `/v1/accounts/${mine.AccountRef}/transfers?limit=2&after=${first.body.pagination.nextCursor}`,
      {
        apiKey: tenant.apiKey,
      },
    );
    assert.deepEqual(
      [second.body.transfers.map((one: { id: string }) => one.id), second.body.pagination],
      [[made[0]], { limit: 2, nextCursor: null, hasMore: false }],
    );
    const stranger = await account();
    const badCursor = await call(stack.apiUrl, 'GET', `/v1/accounts/${stranger.AccountRef}/transfers?after=${made[0]}`, {
      apiKey: tenant.apiKey,
    });
    assert.deepEqual([badCursor.status, badCursor.body.error], [400, 'invalid cursor']);
  });

  it('answers a retry under its key with the first transfer, once; another body under it is 409; a key is required', async () => {
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 10_000n);
    const key = randomUUID();
    const body = { toAccountRef: to.AccountRef, amount: '30.00', narration: 'once' };
    const answers = await Promise.all([transfer(from, body, { key }), transfer(from, body, { key }), transfer(from, body, { key })]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 201, 201],
    );
    assert.equal(new Set(answers.map((answer) => answer.body.id)).size, 1);
    const again = await transfer(from, body, { key });
    assert.deepEqual([again.status, again.body], [201, answers[0]!.body]);
    assert.equal((await balance(from)).ledgerBalance, '70.00', 'moved once');

    const different = await transfer(from, { ...body, amount: '31.00' }, { key });
    assert.deepEqual([different.status, different.body.error], [409, 'Idempotency-Key was already used with a different request']);
    const keyless = await transfer(from, body, { key: null });
    assert.deepEqual([keyless.status, keyless.body.error], [400, 'Idempotency-Key header is required']);
    assert.equal((await balance(from)).ledgerBalance, '70.00');
  });

  it('refuses what the source cannot pay (held money included), writing nothing, and leaves the key free', async () => {
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 5_000n);
    const key = randomUUID();
    const eventsBefore = await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId, type: 'transfer.completed' }).count();
    const refused = await transfer(from, { toAccountRef: to.AccountRef, amount: '50.01' }, { key });
    assert.deepEqual([refused.status, refused.body.code, refused.body.error], [400, 'insufficient_funds', 'insufficient funds']);
    assert.deepEqual(
      await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId, type: 'transfer.completed' }).count(),
      eventsBefore,
    );
    assert.equal((await balance(to)).ledgerBalance, '0.00');
    const paid = await transfer(from, { toAccountRef: to.AccountRef, amount: '50.00' }, { key });
    assert.equal(paid.status, 201, 'the refused request claimed no key');

    // A credit over the tier-1 single-credit limit (50,000.00), confirmed: 10,000.00 of it is held and cannot be moved.
    const holder = await account();
    const large = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: holder.AccountRef, amount: 60_050, fee: 50 },
    });
    assert.equal(large.body.delivery.status, 200, large.text);
    await eventually(async () => (await balance(holder)).availableBalance === '60000.00', { what: 'the confirmation' });
    assert.deepEqual([(await balance(holder)).ledgerBalance, (await balance(holder)).heldBalance], ['60000.00', '10000.00']);
    const overHeld = await transfer(holder, { toAccountRef: to.AccountRef, amount: '50000.01' });
    assert.deepEqual([overHeld.status, overHeld.body.error], [400, 'insufficient funds']);
    const unheld = await transfer(holder, { toAccountRef: to.AccountRef, amount: '50000.00' });
    assert.equal(unheld.status, 201, unheld.text);
    assert.deepEqual([(await balance(holder)).ledgerBalance, (await balance(holder)).heldBalance], ['10000.00', '10000.00']);
  });

  it('never moves money the provider has not confirmed, whatever settlements may spend; confirmed money moves and arrives confirmed', async () => {
    const from = await account();
    const to = await account();
    // The provider announces 10,025.00 whose lookup says PROCESSING for the whole test and then PAYMENT_FAILED: the credit stays
    // provisional (a settlement may spend it under SETTLEMENT_FUNDS=ledger) until the provider's answer reverses it.
    const failing = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: from.AccountRef, amount: 10_025, fee: 25, status: 'PAYMENT_FAILED', processingMs: 3_600_000 },
    });
    assert.equal(failing.body.delivery.status, 200, failing.text);
    assert.deepEqual([(await balance(from)).ledgerBalance, (await balance(from)).availableBalance], ['10000.00', '0.00']);
    for (const amount of ['1000.00', '0.01']) {
      const refused = await transfer(from, { toAccountRef: to.AccountRef, amount });
      assert.deepEqual([refused.status, refused.body.code, refused.body.error], [400, 'insufficient_funds', 'insufficient funds'], amount);
    }
    assert.deepEqual(await statement(stack, tenant.apiKey, to.AccountRef).then((page) => page.body.lines), []);

    // A payment the provider confirms: once confirmed, it moves, and the receiving line is confirmed.
    const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: from.AccountRef, amount: 2_025, fee: 25 },
    });
    assert.equal(paid.body.delivery.status, 200, paid.text);
    await eventually(async () => (await balance(from)).availableBalance === '2000.00', { what: 'the confirmation of the second payment' });
    const moved = await transfer(from, { toAccountRef: to.AccountRef, amount: '2000.00' });
    assert.equal(moved.status, 201, moved.text);
    const tooMuch = await transfer(from, { toAccountRef: to.AccountRef, amount: '0.01' });
    assert.deepEqual([tooMuch.status, tooMuch.body.error], [400, 'insufficient funds'], 'the provisional 10,000.00 is still not movable');
    const [line] = (await statement(stack, tenant.apiKey, to.AccountRef)).body.lines;
    assert.deepEqual([line.entry.Kind, line.entry.Amount, line.entry.Status], ['transfer', '2000.00', 'confirmed']);
    assert.deepEqual([(await balance(to)).ledgerBalance, (await balance(to)).availableBalance], ['2000.00', '2000.00']);
  });

  it("says which input is wrong: unknown or another tenant's account 404 on either side, same account, bad amounts", async () => {
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 10_000n);
    const otherTenant = await createTenant(stack, 'Other Tenant');
    const theirs = await account(undefined, otherTenant.apiKey);
    await fundAccount(stack, theirs.ID, 10_000n);

    for (const [source, target, apiKey] of [
      [from.AccountRef, theirs.AccountRef, tenant.apiKey],
      [theirs.AccountRef, to.AccountRef, tenant.apiKey],
      [from.AccountRef, 'no-such-account', tenant.apiKey],
      ['no-such-account', to.AccountRef, tenant.apiKey],
      [theirs.AccountRef, from.AccountRef, otherTenant.apiKey],
    ] as const) {
      const response = await transfer(source, { toAccountRef: target, amount: '1.00' }, { apiKey });
      assert.deepEqual([response.status, response.body.error], [404, 'account not found'], `${source} -> ${target}`);
    }
    const same = await transfer(from, { toAccountRef: from.AccountRef, amount: '1.00' });
    assert.deepEqual([same.status, same.body.code, same.body.error], [400, 'same_account', 'cannot transfer to the same account']);
    for (const amount of ['0', '0.00', '-1.00', '1.001', 'ten', 1, '99999999999999.00'])
      assert.equal((await transfer(from, { toAccountRef: to.AccountRef, amount })).status, 400, `amount ${amount}`);
    const missing = await transfer(from, { amount: '1.00' });
    assert.equal(missing.status, 400);

    const mine = await call(stack.apiUrl, 'GET', `/v1/accounts/${theirs.AccountRef}/transfers`, { apiKey: tenant.apiKey });
    assert.deepEqual([mine.status, mine.body.error], [404, 'account not found']);
    const made = await transfer(
      theirs,
      { toAccountRef: (await account(undefined, otherTenant.apiKey)).AccountRef, amount: '1.00' },
      { apiKey: otherTenant.apiKey },
    );
    assert.equal(made.status, 201, made.text);
    for (const id of [made.body.id, randomUUID(), 'not-a-uuid']) {
      const read = await call(stack.apiUrl, 'GET', `/v1/transfers/internal/${id}`, { apiKey: tenant.apiKey });
      assert.deepEqual([read.status, read.body.error], [404, 'transfer not found']);
    }
    assert.deepEqual((await balance(from)).ledgerBalance, '100.00', 'nothing moved');
  });

  it('refuses an expired account or a suspended customer on either side', async () => {
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    for (const side of ['from', 'to'] as const) {
      const from = await account();
      const to = await account();
      await fundAccount(stack, from.ID, 10_000n);
      const closed = side === 'from' ? from : to;
      await stack.infra.db('virtual_accounts').where({ id: closed.ID }).update({ status: 'expired' });
      const expired = await transfer(from, { toAccountRef: to.AccountRef, amount: '1.00' });
      assert.deepEqual(
        [expired.status, expired.body.code, expired.body.error],
        [400, 'account_expired', `account ${closed.AccountRef} is expired`],
      );
      await stack.infra.db('virtual_accounts').where({ id: closed.ID }).update({ status: 'active' });

      assert.equal((await call(stack.apiUrl, 'POST', `/auth/customers/${closed.CustomerID}/suspend`, { cookie: operator })).status, 200);
      const suspended = await transfer(from, { toAccountRef: to.AccountRef, amount: '1.00' });
      assert.deepEqual(
        [suspended.status, suspended.body.code, suspended.body.error],
        [400, 'customer_suspended', `the customer of account ${closed.AccountRef} is suspended`],
      );
      assert.equal((await balance(from)).ledgerBalance, '100.00');
    }
  });

  it("holds the part of a credit over the receiving customer's balance limit", async () => {
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 4_000_000n);
    // 290,000.00 of the tier-1 balance limit of 300,000.00 used, in credits within the single-credit limit.
    for (const amount of [50_000_00n, 50_000_00n, 50_000_00n, 50_000_00n, 50_000_00n, 40_000_00n]) await fundAccount(stack, to.ID, amount);
    assert.equal((await balance(to)).heldBalance, '0.00');
    const response = await transfer(from, { toAccountRef: to.AccountRef, amount: '25000.00' });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual([(await balance(to)).ledgerBalance, (await balance(to)).heldBalance], ['315000.00', '15000.00']);
  });

  it("counts a transfer to another customer toward the daily payout limit, and none between one customer's accounts", async () => {
    const externalRef = `cust-${randomUUID()}`;
    const first = await account(externalRef);
    const second = await account(externalRef);
    const stranger = await account();
    for (const _ of [1, 2]) await fundAccount(stack, first.ID, 50_000_00n);

    // Between one customer's accounts: no payout, 80,000.00 of them in a day (each within the single-credit limit, which
    // the ledger judges every credit against).
    for (const [from, to] of [
      [first, second],
      [second, first],
    ] as const) {
      const moved = await transfer(from, { toAccountRef: to.AccountRef, amount: '40000.00' });
      assert.equal(moved.status, 201, moved.text);
    }
    // To another customer: the tier-1 daily payout limit of 50,000.00.
    assert.equal((await transfer(first, { toAccountRef: stranger.AccountRef, amount: '30000.00' })).status, 201);
    const refused = await transfer(first, { toAccountRef: stranger.AccountRef, amount: '20000.01' });
    assert.deepEqual(
      [refused.status, refused.body.code, refused.body.error],
      [400, 'daily_debit_limit_exceeded', 'amount exceeds the tier 1 daily payout limit of 50000.00 (20000.00 left today, Africa/Lagos)'],
    );
    // A settlement shares the day: 20,000.00 left for it too.
    const settle = await call(stack.apiUrl, 'POST', `/v1/accounts/${first.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '20000.01', bankCode: '058', accountNumber: '0123456789' },
    });
    assert.equal(settle.body.error, refused.body.error);
    assert.equal(
      (await transfer(first, { toAccountRef: second.AccountRef, amount: '10000.00' })).status,
      201,
      'still free within the customer',
    );
  });

  it('crossed concurrent transfers A->B and B->A all finish, never overdraw, and move exactly what they say', async () => {
    const a = await account();
    const b = await account();
    await fundAccount(stack, a.ID, 10_000n);
    await fundAccount(stack, b.ID, 10_000n);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => [
        transfer(a, { toAccountRef: b.AccountRef, amount: '7.00' }),
        transfer(b, { toAccountRef: a.AccountRef, amount: '3.00' }),
      ]).flat(),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.ok(
      statuses.every((status) => status === 201 || status === 400),
      JSON.stringify(answers.filter((answer) => answer.status !== 201).map((answer) => answer.text)),
    );
    const refused = answers.filter((answer) => answer.status === 400);
    assert.ok(refused.every((answer) => answer.body.error === 'insufficient funds'));
    const moved = (from: ProvisionedAccount) =>
      answers
        .filter((answer) => answer.status === 201 && answer.body.fromAccountRef === from.AccountRef)
        .reduce((sum, answer) => sum + kobo(answer.body.amount), 0n);
    const [ab, ba] = [moved(a), moved(b)];
    assert.equal(kobo((await balance(a)).ledgerBalance), 10_000n - ab + ba);
    assert.equal(kobo((await balance(b)).ledgerBalance), 10_000n + ab - ba);
    assert.ok(kobo((await balance(a)).ledgerBalance) >= 0n && kobo((await balance(b)).ledgerBalance) >= 0n);
    assert.ok(ab > 0n && ba > 0n);
  });

  it('50 concurrent transfers among a few accounts leave ledger:verify clean and the books at 0.00', async () => {
    const ledgerTenant = await createTenant(stack, 'Busy Tenant');
    const externalRef = `cust-${randomUUID()}`;
    const accounts = [
      await account(undefined, ledgerTenant.apiKey),
      await account(externalRef, ledgerTenant.apiKey),
      await account(externalRef, ledgerTenant.apiKey),
      await account(undefined, ledgerTenant.apiKey),
    ];
    for (const one of accounts) await fundAccount(stack, one.ID, 20_000n);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => {
        // Every direction between the four accounts, two of them one customer's.
        const from = accounts[index % 4]!;
        const to = accounts[(index + 1 + (index % 3)) % 4]!;
        return transfer(from, { toAccountRef: to.AccountRef, amount: `${(index % 9) + 1}.25` }, { apiKey: ledgerTenant.apiKey });
      }),
    );
    assert.deepEqual(
      answers.filter((answer) => answer.status !== 201).map((answer) => answer.text),
      [],
    );
    const total = (await Promise.all(accounts.map((one) => balance(one, ledgerTenant.apiKey)))).reduce(
      (sum, one) => sum + kobo(one.ledgerBalance),
      0n,
    );
    assert.equal(total, 80_000n);
    assert.deepEqual(await transfersOf(ledgerTenant.tenantId), [{ count: '50' }]);
    const books = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: ledgerTenant.apiKey });
    assert.equal(books.body.total, '0.00');
    const verify = JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] };
    assert.deepEqual(verify.problems, []);
  });

  it('tells a subscribed endpoint: transfer.completed', async () => {
    const receiver = await startReceiver([200]);
    try {
      const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
        apiKey: tenant.apiKey,
        body: { url: receiver.url, eventTypes: ['transfer.completed'] },
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      const from = await account();
      const to = await account();
      await fundAccount(stack, from.ID, 10_000n);
      const made = await transfer(from, { toAccountRef: to.AccountRef, amount: '12.34', narration: 'for lunch' });
      assert.equal(made.status, 201);
      await eventually(async () => receiver.calls.length >= 1, { what: 'the transfer.completed delivery' });
      const envelope = JSON.parse(receiver.calls[0]!.body);
      assert.deepEqual(
        [envelope.type, envelope.subject, envelope.sequence, envelope.data],
        [
          'transfer.completed',
          made.body.id,
          1,
          {
            transferId: made.body.id,
            fromAccountRef: from.AccountRef,
            toAccountRef: to.AccountRef,
            amount: '12.34',
            currency: 'NGN',
            narration: 'for lunch',
            heldAmount: '0.00',
          },
        ],
      );
    } finally {
      await receiver.close();
    }
  });

  it('the dashboard transfers from an account page, audited once', async () => {
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const viewer = await dashboardSession(stack, tenant.tenantId, 'viewer');
    const from = await account();
    const to = await account();
    await fundAccount(stack, from.ID, 10_000n);
    const key = randomUUID();
    const send = (cookie: string) =>
      call(stack.apiUrl, 'POST', `/auth/accounts/${from.AccountRef}/transfers`, {
        cookie,
        body: { toAccountRef: to.AccountRef, amount: '5.00' },
        headers: { 'Idempotency-Key': key },
      });
    assert.equal((await send(viewer)).status, 403);
    const made = await send(operator);
    assert.equal(made.status, 201, made.text);
    assert.equal((await send(operator)).body.id, made.body.id);
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, action: 'transfer.made' })
      .whereNotNull('user_id')
      .select('target_id', 'detail');
    assert.deepEqual(
      audit.map((row) => [row.target_id, row.detail.toAccountRef, row.detail.amount]),
      [[made.body.id, to.AccountRef, '5.00']],
    );
    const row = await stack.infra.db('internal_transfers').where({ id: made.body.id }).first('source', 'created_by');
    assert.equal(row.source, 'dashboard');
    assert.ok(row.created_by);
  });
});
