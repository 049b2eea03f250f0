import assert from 'node:assert/strict';
import { provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** A payer whose name the sandbox's name enquiry gives as the payment names them (its default sender name). */
const PAYER_ACCOUNT = '0123456789';

describe('dynamic accounts', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack(
      {
        CONFIRMATION_WINDOW: '3s',
        CONFIRMATION_POLL_INTERVAL: '500ms',
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const provision = (body: Record<string, unknown>) =>
    call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body: { externalRef: 'dyn-cust', name: 'Ada Obi', ...body } });
  const read = async (account: ProvisionedAccount, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey });
  const balance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
  const pay = async (account: ProvisionedAccount, amount: number, payer: { senderName?: string } = {}) => {
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount, fee: 0.5, senderAccountNumber: PAYER_ACCOUNT, ...payer },
    });
    assert.equal(sent.body.delivery.status, 200, sent.text);
    return sent.body.transactionId as string;
  };
  const lineOf = async (account: ProvisionedAccount, transactionId: string) =>
    (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.find(
      (line: { entry: { ProviderTxnRef: string; Kind: string } }) =>
        line.entry.ProviderTxnRef === transactionId && line.entry.Kind === 'payment',
    )?.entry;
  const confirmed = (account: ProvisionedAccount, transactionId: string) =>
    eventually(async () => ((await lineOf(account, transactionId))?.Status === 'confirmed' ? true : null), { what: 'confirmation' });
  const eventsOf = async (types: string[], subject: string) =>
    (await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId, subject }).whereIn('type', types).orderBy('sequence')).map(
      (event: { type: string; data: Record<string, unknown> }) => [event.type, event.data],
    );
  const groupOf = async (account: ProvisionedAccount, transactionId: string) =>
    (await lineOf(account, transactionId)).TransactionGroupId as string;

  it('refuses bad terms with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ expiresAt: new Date(Date.now() + 60_000).toISOString(), expiresInSeconds: 60 }, 'give expiresAt or expiresInSeconds, not both'],
      [{ expiresAt: new Date(Date.now() - 1_000).toISOString() }, 'expiresAt must be in the future'],
      [{ expiresAt: new Date(Date.now() + 31 * 86_400_000).toISOString() }, 'expiresAt must be at most 30 days ahead'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt must be an ISO 8601 timestamp with a time zone, e.g. 2026-12-31T18:00:00Z'],
      [{ expiresInSeconds: 0 }, 'expiresInSeconds must be a whole number of seconds from 1 to 2592000 (30 days)'],
      [{ expiresInSeconds: 2_592_001 }, 'expiresInSeconds must be a whole number of seconds from 1 to 2592000 (30 days)'],
      [{ amountPolicy: 'at_least' }, 'amountPolicy at_least requires an expectedAmount'],
      [{ amountPolicy: 'roughly', expectedAmount: '10.00' }, 'amountPolicy must be one of exact, at_least, at_most, any'],
      [{ onMismatch: 'keep' }, 'onMismatch must be one of credit_and_flag, return'],
    ];
    for (const [body, message] of cases) {
      const response = await provision(body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.ok(JSON.stringify(response.body).includes(message), `${JSON.stringify(body)}: expected "${message}" in ${response.text}`);
    }
    assert.equal(
      await stack.infra
        .db('virtual_accounts')
        .where({ tenant_id: tenant.tenantId })
        .count('* as n')
        .first()
        .then((row) => Number(row?.n)),
      0,
    );
  });

  it('shows its terms on the account and in the list, defaults them, and keeps them from other tenants', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const dynamic = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '100.00', expiresAt: expiresAt.toISOString() });
    const ordinary = await provisionAccount(stack, tenant.apiKey);
    const shown = (await read(dynamic)).body;
    assert.deepEqual(
      [shown.Status, shown.ExpectedAmount, shown.ExpiresAt, shown.AmountPolicy, shown.OnMismatch],
      ['active', '100.00', expiresAt.toISOString(), 'exact', 'credit_and_flag'],
    );
    const plain = (await read(ordinary)).body;
    assert.deepEqual([plain.ExpiresAt, plain.AmountPolicy, plain.OnMismatch], [null, null, null]);
    const listed = (await call(stack.apiUrl, 'GET', '/v1/accounts', { apiKey: tenant.apiKey })).body.accounts.find(
      (account: { AccountRef: string }) => account.AccountRef === dynamic.AccountRef,
    );
    assert.deepEqual([listed.ExpiresAt, listed.AmountPolicy, listed.OnMismatch], [expiresAt.toISOString(), 'exact', 'credit_and_flag']);
    const other = await createTenant(stack, 'Other Tenant');
    assert.equal((await read(dynamic, other.apiKey)).status, 404);
    assert.equal((await statement(stack, other.apiKey, dynamic.AccountRef)).status, 404);
  });

  it('credit_and_flag: an under-payment is credited and flagged (event and statement line), the exact one closes the account', async () => {
    const account = await provisionAccount(stack, tenant.apiKey, {
      expectedAmount: '100.00',
      amountPolicy: 'exact',
      expiresInSeconds: 3_600,
    });
    const under = await pay(account, 60);
    await confirmed(account, under);
    const underGroup = await groupOf(account, under);
    const [[type, received]] = (await eventsOf(['payment.received'], underGroup)) as [[string, Record<string, any>]];
    assert.equal(type, 'payment.received');
    assert.deepEqual(
      [
        received.gross_amount,
        received.amount,
        received.expectedAmount,
        received.amountReceived,
        received.variance,
        received.mismatchAction,
      ],
      ['60.00', '59.50', '100.00', '60.00', 'under', 'flagged'],
    );
    const line = await lineOf(account, under);
    assert.deepEqual(
      [line.ExpectedAmount, line.AmountReceived, line.Variance, line.MismatchAction],
      ['100.00', '60.00', 'under', 'flagged'],
    );
    // The dashboard's CSV export carries the same judgement in its last four columns, to the kobo.
    const csv = await call(stack.apiUrl, 'GET', `/auth/accounts/${account.AccountRef}/statement.csv`, {
      cookie: await dashboardSession(stack, tenant.tenantId, 'viewer'),
    });
    assert.equal(csv.status, 200, csv.text);
    const [header, ...csvLines] = csv.text.trimEnd().split('\r\n');
    assert.ok(header!.endsWith(',Counterpart account,Expected amount,Amount received,Variance,Mismatch action'), header);
    const csvLine = csvLines.find((candidate) => candidate.includes(`,"${under}",`));
    assert.ok(csvLine, csv.text);
    assert.ok(csvLine.includes(',payment,credit,confirmed,59.50,0.50,59.50,'), csvLine);
    assert.ok(csvLine.endsWith(',,100.00,60.00,under,flagged'), csvLine);
    assert.equal((await read(account)).body.Status, 'active', 'a mismatch does not close the account');
    assert.deepEqual([(await balance(account)).ledgerBalance, (await balance(account)).heldBalance], ['59.50', '0.00']);

    const exact = await pay(account, 100);
    await confirmed(account, exact);
    assert.equal((await lineOf(account, exact)).Variance, 'exact');
    await eventually(async () => ((await read(account)).body.Status === 'expired' ? true : null), { what: 'account closed' });

    // After it closed, a payment is after_expiry: credited and flagged.
    const late = await pay(account, 100);
    const lateLine = await eventually(async () => (await lineOf(account, late)) ?? null, { what: 'late credit' });
    assert.deepEqual([lateLine.Variance, lateLine.MismatchAction], ['after_expiry', 'flagged']);
  });

  it('return: an under-payment is held, and once confirmed paid back to the payer by name; the books stay at 0.00', async () => {
    const account = await provisionAccount(stack, tenant.apiKey, {
      expectedAmount: '100.00',
      amountPolicy: 'exact',
      onMismatch: 'return',
      callbackUrl: 'http://127.0.0.1:9/hook',
    });
    const under = await pay(account, 60);
    const group = await eventually(async () => ((await lineOf(account, under)) ? groupOf(account, under) : null), { what: 'credit' });
    const [[, received]] = (await eventsOf(['payment.received'], group)) as [[string, Record<string, any>]];
    assert.deepEqual([received.variance, received.mismatchAction], ['under', 'return']);
    const callback = await stack.infra.db('webhook_deliveries').where({ account_id: account.ID }).first('payload');
    assert.deepEqual(JSON.parse(callback.payload), received, 'the callback body is the event data');

    const returned = await eventually(
      async () => {
        const told = await eventsOf(['payment.mismatch_returned'], group);
        return told.length === 1 ? (told[0]![1] as Record<string, string>) : null;
      },
      { what: 'payment.mismatch_returned' },
    );
    assert.deepEqual(
      { ...returned, merchantTxRef: undefined },
      {
        transactionGroupId: group,
        accountRef: account.AccountRef,
        amount: '59.50',
        currency: 'NGN',
        variance: 'under',
        merchantTxRef: undefined,
      },
    );
    await eventually(
      async () => {
        const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${returned.merchantTxRef}`, { apiKey: tenant.apiKey });
        return transfer.body.status === 'success' ? transfer.body : null;
      },
      { what: 'return paid' },
    );
    const now = await balance(account);
    assert.deepEqual([now.ledgerBalance, now.heldBalance], ['0.00', '0.00']);
    const payouts = await stack.infra.db('settlements').where({ account_id: account.ID }).select('amount', 'account_number');
    assert.deepEqual(payouts, [{ amount: '5950', account_number: PAYER_ACCOUNT }], 'one payout, to the payer');
    const books = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: tenant.apiKey });
    assert.equal(books.body.total, '0.00');
  });

  it('return refused: a payer the provider names otherwise keeps the money held for an operator, and is told', async () => {
    const account = await provisionAccount(stack, tenant.apiKey, {
      expectedAmount: '100.00',
      amountPolicy: 'at_least',
      onMismatch: 'return',
    });
    const under = await pay(account, 40, { senderName: 'Somebody Else Entirely' });
    await confirmed(account, under);
    const group = await groupOf(account, under);
    const held = await eventually(
      async () => {
        const told = await eventsOf(['payment.mismatch_held'], group);
        return told.length === 1 ? (told[0]![1] as Record<string, string>) : null;
      },
      { what: 'payment.mismatch_held' },
    );
    assert.deepEqual([held.amount, held.variance], ['39.50', 'under']);
    assert.match(held.reason!, /not "Somebody Else Entirely" as the payment names its payer/);
    const now = await balance(account);
    assert.deepEqual([now.ledgerBalance, now.heldBalance], ['39.50', '39.50']);
    assert.deepEqual(await stack.infra.db('settlements').where({ account_id: account.ID }).select('id'), []);
    const hold = await stack.infra.db('ledger_reservations').where({ account_id: account.ID }).first('kind', 'reason', 'open_amount');
    assert.deepEqual(hold, { kind: 'payment_mismatch', reason: 'amount_mismatch', open_amount: '3950' });
    // An over-payment is what at_least accepts: credited, not held, and it closes the account.
    const over = await pay(account, 150);
    await confirmed(account, over);
    assert.deepEqual([(await lineOf(account, over)).Variance, (await lineOf(account, over)).MismatchAction], ['over', 'none']);
    await eventually(async () => ((await read(account)).body.Status === 'expired' ? true : null), { what: 'account closed' });
  });

  it('expires by its timer, never early; a payment after expiry follows onMismatch (return)', async () => {
    const account = await provisionAccount(stack, tenant.apiKey, { amountPolicy: 'any', onMismatch: 'return', expiresInSeconds: 2 });
    const expiresAt = Date.parse((await read(account)).body.ExpiresAt);
    const expiredSeenAt = await eventually(async () => ((await read(account)).body.Status === 'expired' ? Date.now() : null), {
      what: 'expiry',
    });
    assert.ok(expiredSeenAt >= expiresAt, 'not before its expiry');
    const row = await stack.infra.db('virtual_accounts').where({ id: account.ID }).first('updated_at', 'expires_at');
    assert.ok(row.updated_at.getTime() >= row.expires_at.getTime(), 'marked expired at or after expires_at');

    const late = await pay(account, 25);
    const group = await eventually(async () => ((await lineOf(account, late)) ? groupOf(account, late) : null), { what: 'credit' });
    const [[, received]] = (await eventsOf(['payment.received'], group)) as [[string, Record<string, any>]];
    assert.deepEqual([received.expectedAmount, received.variance, received.mismatchAction], [null, 'after_expiry', 'return']);
    const returned = await eventually(
      async () => {
        const told = await eventsOf(['payment.mismatch_returned'], group);
        return told.length === 1 ? (told[0]![1] as Record<string, string>) : null;
      },
      { what: 'payment.mismatch_returned' },
    );
    assert.deepEqual([returned.amount, returned.variance], ['24.50', 'after_expiry']);
  });
});
