import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fundAccount, paymentEvent, sendProviderEvent } from '../helpers/fixtures';
import { call, eventually } from '../helpers/http';
import { startReceiver } from '../helpers/receiver';
import { sdk } from '../helpers/sdk';
import { dashboardSession } from '../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../helpers/stack';

const {
  LedgerClient,
  LedgerApiError,
  LedgerAuthenticationError,
  LedgerConflictError,
  LedgerConnectionError,
  LedgerNotFoundError,
  LedgerRateLimitError,
  LedgerValidationError,
  verifyWebhook,
  isPaymentReceived,
  WebhookVerificationError,
} = sdk;

/** A fetch that records each request's method, path and headers before sending it. */
function recordingFetch() {
  const sent: Array<{ method: string; path: string; headers: Headers }> = [];
  const fetcher: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    sent.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { sent, fetcher };
}

describe('the TypeScript client against the running service', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack(
      { SETTLEMENT_RETRY_SCHEDULE: '200ms', SETTLEMENT_POLL_INTERVAL: '200ms', WEBHOOK_RETRY_SCHEDULE: '300ms' },
      { worker: true },
    );
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const clientFor = (apiKey: string, fetcher?: typeof fetch) =>
    new LedgerClient({ baseUrl: stack.apiUrl, apiKey, ...(fetcher ? { fetch: fetcher } : {}) });

  it("transfers between the tenant's accounts with a generated Idempotency-Key, reads it back, and lists it on both accounts", async () => {
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(tenant.apiKey, fetcher);
    const from = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    const to = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Bola Ade' });
    await fundAccount(stack, from.ID, 10_000n);

    const made = await client.accounts.transfer(from.AccountRef, { toAccountRef: to.AccountRef, amount: '12.50', narration: 'lunch' });
    assert.deepEqual(
      [made.status, made.amount, made.fromAccountRef, made.toAccountRef],
      ['completed', '12.50', from.AccountRef, to.AccountRef],
    );
    assert.match(sent.find((request) => request.path.endsWith('/transfers'))!.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(await client.transfers.getInternal(made.id), made);
    const again = await client.accounts.transfer(
      from.AccountRef,
      { toAccountRef: to.AccountRef, amount: '1.00' },
      { idempotencyKey: 'sdk-transfer-1' },
    );
    for (const account of [from, to]) {
      const listed = [];
      for await (const transfer of client.accounts.transfers(account.AccountRef, { limit: 1 })) listed.push(transfer.id);
      assert.deepEqual(listed, [again.id, made.id]);
    }
    const lines = [];
    for await (const line of client.accounts.statement(to.AccountRef)) lines.push(line.entry);
    assert.deepEqual(
      lines.map((entry) => [entry.Kind, entry.Amount, entry.CounterpartAccountRef]),
      [
        ['transfer', '12.50', from.AccountRef],
        ['transfer', '1.00', from.AccountRef],
      ],
    );
    await assert.rejects(client.transfers.getInternal(randomUUID()), LedgerNotFoundError);
  });

  it("carries metadata on accounts, settlements and transfers, changes an account's, and filters the lists by it", async () => {
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(tenant.apiKey, fetcher);
    const orderId = `A-${randomUUID()}`;
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', metadata: { orderId } });
    const to = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Bola Ade' });
    assert.deepEqual(account.Metadata, { orderId });
    const changed = await client.accounts.update(account.AccountRef, { metadata: { stage: 'paid', orderId: null } });
    assert.deepEqual(changed.Metadata, { stage: 'paid' });
    await fundAccount(stack, account.ID, 10_000n);
    const settled = await client.settlements.settle(account.AccountRef, {
      amount: '1.00',
      bankCode: '058',
      accountNumber: '0123456789',
      metadata: { orderId },
    });
    const moved = await client.accounts.transfer(account.AccountRef, {
      toAccountRef: to.AccountRef,
      amount: '2.00',
      metadata: { orderId },
    });

    const accounts = [];
    for await (const found of client.accounts.list({ metadata: { stage: 'paid', nobodyElse: 'x' } })) accounts.push(found);
    assert.deepEqual(accounts, []);
    const tagged = (await client.accounts.listPage(undefined, { metadata: { stage: 'paid' } })).accounts.map((found) => found.AccountRef);
    assert.ok(tagged.includes(account.AccountRef));
    const settlements = [];
    for await (const found of client.transfers.list({ metadata: { orderId } })) settlements.push(found);
    assert.deepEqual(
      settlements.map((found) => [found.merchantTxRef, found.metadata]),
      [[settled.merchantTxRef, { orderId }]],
    );
    const transfers = [];
    for await (const found of client.transfers.internal({ metadata: { orderId } })) transfers.push(found);
    assert.deepEqual(
      transfers.map((found) => [found.id, found.metadata]),
      [[moved.id, { orderId }]],
    );
    assert.ok(sent.some((request) => request.path.startsWith(`/v1/transfers?metadata%5BorderId%5D=${orderId}`)));
  });

  it('previews a settlement batch, creates it under a generated Idempotency-Key, follows its items to the end, and lists it', async () => {
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(tenant.apiKey, fetcher);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    await fundAccount(stack, account.ID, 100_000n);
    const item = { accountRef: account.AccountRef, bankCode: '058', accountNumber: '0123456789' };
    const input = {
      items: [
        { reference: 'sdk-1', amount: '10.00', ...item },
        { reference: 'sdk-2', amount: 'ten', ...item },
        { reference: 'sdk-3', amount: '20.00', ...item },
      ],
    };
    const preview = await client.settlementBatches.dryRun(input);
    assert.deepEqual(
      [preview.valid, preview.invalid, preview.items[1]],
      [2, 1, { reference: 'sdk-2', valid: false, reason: 'invalid amount' }],
    );

    const created = await client.settlementBatches.create(input);
    assert.match(sent.at(-1)!.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/);
    const ended = await eventually(async () => {
      const batch = await client.settlementBatches.get(created.id);
      return batch.status === 'completed_with_failures' && batch;
    });
    assert.deepEqual(ended.counts, { queued: 0, pending: 0, processing: 0, success: 2, failed: 1, refunded: 0 });
    const items = [];
    for await (const batchItem of client.settlementBatches.items(created.id)) items.push([batchItem.reference, batchItem.status]);
    assert.deepEqual(items, [
      ['sdk-1', 'success'],
      ['sdk-2', 'failed'],
      ['sdk-3', 'success'],
    ]);
    const listed = [];
    for await (const batch of client.settlementBatches.list()) listed.push(batch.id);
    assert.ok(listed.includes(created.id));
    await assert.rejects(client.settlementBatches.cancel(created.id), (error: unknown) => error instanceof sdk.LedgerConflictError);
  });

  it("carries metadata on batches, their items and beneficiaries, changes a beneficiary's, and filters the lists by it", async () => {
    const { sent, fetcher } = recordingFetch();
    // A tenant of its own: the other cases list every beneficiary of theirs.
    const client = clientFor((await createTenant(stack, 'Metadata Client')).apiKey, fetcher);
    const run = `run-${randomUUID()}`;
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    await fundAccount(stack, account.ID, 100_000n);
    const item = { accountRef: account.AccountRef, amount: '5.00', bankCode: '058', accountNumber: '0123456789' };
    const created = await client.settlementBatches.create({
      metadata: { run },
      items: [
        { reference: 'tagged', ...item, metadata: { orderId: 'A-17' } },
        { reference: 'plain', ...item },
      ],
    });
    assert.deepEqual(created.metadata, { run });
    const batches = [];
    for await (const batch of client.settlementBatches.list({ metadata: { run } })) batches.push([batch.id, batch.metadata]);
    assert.deepEqual(batches, [[created.id, { run }]]);
    const items = [];
    for await (const batchItem of client.settlementBatches.items(created.id, { metadata: { orderId: 'A-17' } }))
      items.push([batchItem.reference, batchItem.metadata]);
    assert.deepEqual(items, [['tagged', { orderId: 'A-17' }]]);
    assert.ok(sent.some((request) => request.path.startsWith(`/v1/settlement-batches?metadata%5Brun%5D=${run}`)));

    const saved = await client.beneficiaries.create({
      bankCode: '058',
      accountNumber: '0987670001',
      metadata: { vendor: run, stage: 'new' },
    });
    assert.deepEqual(saved.metadata, { vendor: run, stage: 'new' });
    const changed = await client.beneficiaries.update(saved.id, { metadata: { stage: 'approved', vendor: null } });
    assert.deepEqual(changed.metadata, { stage: 'approved' });
    const beneficiaries = [];
    for await (const found of client.beneficiaries.list({ metadata: { stage: 'approved' } })) beneficiaries.push(found.id);
    assert.deepEqual(beneficiaries, [saved.id]);
  });

  it('settles with a generated Idempotency-Key, then tracks the transfer to success', async () => {
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(tenant.apiKey, fetcher);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    await fundAccount(stack, account.ID, 100_000n);

    const accepted = await client.settlements.settle(account.AccountRef, {
      amount: '400.00',
      bankCode: '058',
      accountNumber: '0123456789',
      narration: 'payout',
    });
    assert.equal(accepted.amount, '400.00');
    assert.equal(accepted.accountRef, account.AccountRef);
    const settleRequest = sent.find((request) => request.path.endsWith('/settle'))!;
    assert.match(settleRequest.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(settleRequest.headers.get('x-api-key'), tenant.apiKey);

    const transfer = await eventually(async () => {
      const current = await client.transfers.get(accepted.merchantTxRef);
      return current.status === 'success' ? current : null;
    });
    assert.equal(transfer.amount, '400.00');
    assert.equal((await client.accounts.balance(account.AccountRef)).availableBalance, '600.00');
  });

  it('refunds part of a confirmed payment to its payer with a generated Idempotency-Key, and lists the refund to success', async () => {
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(tenant.apiKey, fetcher);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    const paid = await sendProviderEvent(
      stack,
      paymentEvent({
        accountRef: account.AccountRef,
        amount: 1_025,
        fee: 25,
        senderName: 'OKONKWO ADAEZE',
        senderAccountNumber: '0123450077',
        senderBankName: 'GUARANTY TRUST BANK',
      }),
    );
    assert.equal(paid.status, 200);
    await call(stack.sandboxUrl, 'PUT', '/sandbox/accounts/0123450077/name', { body: { accountName: 'ADAEZE OKONKWO' } });
    const [line] = (await client.accounts.statementPage(account.AccountRef)).lines;
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.confirm(trx, line!.entry.ID));
    const group = line!.entry.TransactionGroupId;

    const made = await client.refunds.create(group, { amount: '250.00', reason: 'overpaid' });
    assert.deepEqual([made.status, made.amount, made.transactionGroupId], ['pending', '250.00', group]);
    assert.match(sent.find((request) => request.path.endsWith('/refunds'))!.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/);
    const listed = await eventually(async () => {
      const current = await client.refunds.list(group);
      return current.refunds[0]?.status === 'success' ? current : null;
    });
    assert.deepEqual([listed.refundable, listed.refunds.map((refund) => refund.refundId)], ['750.00', [made.refundId]]);
    await assert.rejects(client.refunds.create(group, { amount: '750.01', reason: 'again' }), LedgerConflictError);
  });

  it('saves, lists, reads and deletes beneficiaries, and settles to one by its id', async () => {
    const client = clientFor(tenant.apiKey);
    const saved = await client.beneficiaries.create({ bankCode: '058', accountNumber: '0987650001', nickname: 'Supplier' });
    assert.equal(saved.accountNumber, '0987650001');
    assert.ok(saved.accountName.length > 0);
    const again = await client.beneficiaries.create({ bankCode: '058', accountNumber: '0987650001' });
    assert.deepEqual([again.id, again.nickname], [saved.id, 'Supplier']);
    const second = await client.beneficiaries.create({ bankCode: '044', accountNumber: '0987660001' });
    const listed: string[] = [];
    for await (const beneficiary of client.beneficiaries.list({ limit: 1 })) listed.push(beneficiary.id);
    assert.deepEqual(listed, [saved.id, second.id]);
    assert.equal((await client.beneficiaries.get(saved.id)).nickname, 'Supplier');

    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    await fundAccount(stack, account.ID, 100_000n);
    const accepted = await client.settlements.settle(account.AccountRef, { amount: '10.00', beneficiaryId: saved.id });
    const transfer = await client.transfers.get(accepted.merchantTxRef);
    assert.deepEqual([transfer.beneficiaryId, transfer.accountNumber], [saved.id, '0987650001']);

    await client.beneficiaries.delete(second.id);
    await assert.rejects(client.beneficiaries.get(second.id), (error: unknown) => error instanceof LedgerNotFoundError);
    await assert.rejects(
      client.settlements.settle(account.AccountRef, { amount: '10.00', beneficiaryId: second.id }),
      (error: unknown) => error instanceof LedgerNotFoundError && error.message === 'beneficiary not found',
    );
  });

  it('sends the caller’s Idempotency-Key: a repeat answers the first settlement, another body under it is a typed 409', async () => {
    const client = clientFor(tenant.apiKey);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    await fundAccount(stack, account.ID, 100_000n);
    const idempotencyKey = `payout-${randomUUID()}`;
    const body = { amount: '100.00', bankCode: '058', accountNumber: '0123456789' };
    const first = await client.settlements.settle(account.AccountRef, body, { idempotencyKey });
    const repeat = await client.settlements.settle(account.AccountRef, body, { idempotencyKey });
    assert.equal(repeat.merchantTxRef, first.merchantTxRef);
    const conflict = await client.settlements
      .settle(account.AccountRef, { ...body, amount: '200.00' }, { idempotencyKey })
      .catch((error: unknown) => error);
    assert.ok(conflict instanceof LedgerConflictError);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.idempotencyKey, idempotencyKey);
    const raw = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { ...body, amount: '200.00' },
      headers: { 'Idempotency-Key': idempotencyKey },
    });
    assert.equal(conflict.message, raw.body.error);
    assert.equal(conflict.code, raw.body.code);
  });

  it('pages a statement: every line once, oldest first, one page per limit', async () => {
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(tenant.apiKey, fetcher);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    for (const kobo of [10_000n, 20_000n, 30_000n, 40_000n, 50_000n]) await fundAccount(stack, account.ID, kobo);

    const lines = [];
    for await (const line of client.accounts.statement(account.AccountRef, { limit: 2 })) lines.push(line);
    assert.deepEqual(
      lines.map((line) => line.entry.Amount),
      ['100.00', '200.00', '300.00', '400.00', '500.00'],
    );
    assert.deepEqual(
      lines.map((line) => line.runningBalance),
      ['100.00', '300.00', '600.00', '1000.00', '1500.00'],
    );
    assert.equal(sent.filter((request) => request.path.includes('/statement')).length, 3);
    const firstPage = await client.accounts.statementPage(account.AccountRef, { limit: 2 });
    assert.equal(firstPage.pagination.hasMore, true);
  });

  it("reads the tenant's books: balances totalling 0.00, and every transaction newest first across pages", async () => {
    const books = await createTenant(stack, 'Books');
    const { sent, fetcher } = recordingFetch();
    const client = clientFor(books.apiKey, fetcher);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    for (const kobo of [10_000n, 20_000n, 30_000n]) await fundAccount(stack, account.ID, kobo);

    const balances = await client.ledger.balances();
    assert.deepEqual(
      balances.accounts.map((line) => [line.code, line.balance]),
      [
        ['clearing', '-600.00'],
        ['provider_fees', '0.00'],
        ['payouts_in_transit', '0.00'],
        ['costs', '0.00'],
        ['customers', '600.00'],
      ],
    );
    assert.equal(balances.total, '0.00');
    const transactions = [];
    for await (const transaction of client.ledger.transactions({ limit: 2 })) transactions.push(transaction);
    assert.deepEqual(
      transactions.map((transaction) => transaction.postings.map((posting) => `${posting.account} ${posting.amount}`)),
      [
        ['customer 300.00', 'clearing -300.00'],
        ['customer 200.00', 'clearing -200.00'],
        ['customer 100.00', 'clearing -100.00'],
      ],
    );
    assert.equal(sent.filter((request) => request.path.startsWith('/v1/ledger/transactions')).length, 2);
  });

  it('reads a balance and the books at a past instant, and daily balances', async () => {
    const owner = await createTenant(stack, 'Balances at');
    const client = clientFor(owner.apiKey);
    const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    const first = await fundAccount(stack, account.ID, 10_000n);
    await eventually(async () => Date.now() > first.createdAt.getTime() + 1, { intervalMs: 2 });
    await fundAccount(stack, account.ID, 20_000n);

    const then = await client.accounts.balanceAt(account.AccountRef, first.createdAt);
    assert.equal(then.ledgerBalance, '100.00');
    assert.equal(then.asOf, first.createdAt.toISOString());
    assert.equal((await client.accounts.balance(account.AccountRef)).ledgerBalance, '300.00');
    const books = await client.ledger.balances({ at: first.createdAt.toISOString() });
    assert.equal(books.accounts.find((line) => line.code === 'customers')?.balance, '100.00');
    const balancesThen = [];
    for await (const balance of client.ledger.customerBalances({ at: first.createdAt, limit: 1 })) balancesThen.push(balance);
    assert.deepEqual(balancesThen, [{ accountRef: account.AccountRef, ledgerBalance: '100.00' }]);
    const lagosDay = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(at);
    const days = await client.accounts.dailyBalances(account.AccountRef, { from: lagosDay(first.createdAt), to: lagosDay(new Date()) });
    assert.equal(days.days[0]?.openingBalance, '0.00');
    assert.equal(days.days.at(-1)?.closingBalance, '300.00');
    assert.equal(
      days.days.reduce((sum, day) => sum + Number(day.credits), 0),
      300,
    );
  });

  it('iterates every customer across pages', async () => {
    const owner = await createTenant(stack, 'Many customers');
    const client = clientFor(owner.apiKey);
    const made = [];
    for (let index = 0; index < 21; index += 1)
      made.push((await client.accounts.create({ externalRef: `cust-${index}`, name: `Customer ${index}` })).CustomerID);
    assert.equal((await client.customers.listPage()).pagination.hasMore, true);
    const seen = [];
    for await (const customer of client.customers.list()) seen.push(customer.ID);
    assert.deepEqual(seen, made);
    assert.equal((await client.customers.get(made[0]!)).ExternalRef, 'cust-0');
  });

  it('throws typed errors carrying the status and the service’s message', async () => {
    const client = clientFor(tenant.apiKey);
    const missing = await client.transfers.get('mtx_does_not_exist').catch((error: unknown) => error);
    assert.ok(missing instanceof LedgerNotFoundError);
    assert.equal(missing.status, 404);
    assert.equal(
      missing.message,
      (await call(stack.apiUrl, 'GET', '/v1/transfers/mtx_does_not_exist', { apiKey: tenant.apiKey })).body.error,
    );

    const invalid = await client.settlements
      .settle('va_any', { amount: 'ten naira', bankCode: '058', accountNumber: '0123456789' })
      .catch((error: unknown) => error);
    assert.ok(invalid instanceof LedgerValidationError);
    assert.equal(invalid.status, 400);
    assert.ok(invalid.details?.some((detail) => detail.path === 'amount'));

    // Money a KYC limit holds (10,000.00 of a tier-1 customer's 60,000.00): the refusal says so, typed.
    const holding = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: holding.AccountRef, amount: 60_050, fee: 50 }))).status, 200);
    const short = await client.settlements
      .settle(holding.AccountRef, { amount: '55000.00', bankCode: '058', accountNumber: '0123456789' })
      .catch((error: unknown) => error);
    assert.ok(short instanceof LedgerValidationError);
    assert.deepEqual([short.code, short.message], ['insufficient_funds', 'insufficient funds']);
    assert.deepEqual(short.heldFunds, { available: '50000.00', held: '10000.00', reason: "held by the customer's KYC limits" });
    assert.equal(invalid.heldFunds, undefined);

    const unauthenticated = await clientFor('sk_not_a_key')
      .accounts.get('va_any')
      .catch((error: unknown) => error);
    assert.ok(unauthenticated instanceof LedgerAuthenticationError);
    assert.equal(unauthenticated.status, 401);
  });

  it('receives a signed payment.received at the callbackUrl and verifies it; one changed byte fails', async () => {
    const receiver = await startReceiver([200]);
    try {
      const owner = await createTenant(stack, 'Webhook receiver');
      const cookie = await dashboardSession(stack, owner.tenantId);
      const secret = (await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: {} })).body.secret as string;
      const client = clientFor(owner.apiKey);
      const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', callbackUrl: receiver.url });
      const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
      assert.ok(paid.status < 300, paid.text);

      const delivered = await eventually(async () => receiver.calls[0], { what: 'the payment.received delivery' });
      const header = String(delivered.headers['x-service-signature']);
      const event = verifyWebhook(delivered.body, header, secret, { toleranceSeconds: 300 });
      assert.ok(isPaymentReceived(event));
      assert.equal(event.accountRef, account.AccountRef);
      assert.equal(event.gross_amount, '5025.00');

      const tampered = delivered.body.replace('"5025.00"', '"5026.00"');
      assert.notEqual(tampered, delivered.body);
      assert.throws(() => verifyWebhook(tampered, header, secret), WebhookVerificationError);
      const signedAt = Number(/t=(\d+)/.exec(header)![1]);
      assert.throws(() => verifyWebhook(delivered.body, header, secret, { nowSeconds: signedAt + 301 }), WebhookVerificationError);
    } finally {
      await receiver.close();
    }
  });

  it('manages a webhook endpoint and verifies the settlement.succeeded it receives, then its recovery under a rotated secret', async () => {
    const receiver = await startReceiver([200]);
    try {
      const owner = await createTenant(stack, 'Endpoint owner');
      const client = clientFor(owner.apiKey);
      const created = await client.webhookEndpoints.create({
        url: receiver.url,
        description: 'payouts',
        eventTypes: ['settlement.succeeded', 'settlement.failed', 'settlement.refunded'],
      });
      assert.match(created.Secret, /^whsec_/);
      assert.deepEqual(
        (await client.webhookEndpoints.list()).map((endpoint) => [endpoint.ID, 'Secret' in endpoint]),
        [[created.ID, false]],
      );
      assert.equal((await client.webhookEndpoints.update(created.ID, { description: 'bank payouts' })).Description, 'bank payouts');
      await assert.rejects(client.webhookEndpoints.create({ url: receiver.url, eventTypes: ['settlement.paid'] }), LedgerValidationError);

      const account = await client.accounts.create({ externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' });
      await fundAccount(stack, account.ID, 100_000n);
      const since = new Date(Date.now() - 1_000).toISOString();
      const accepted = await client.settlements.settle(account.AccountRef, {
        amount: '400.00',
        bankCode: '058',
        accountNumber: '0123456789',
      });
      const delivered = await eventually(async () => receiver.calls[0], { what: 'the settlement.succeeded delivery' });
      const event = verifyWebhook(delivered.body, String(delivered.headers['x-service-signature']), created.Secret);
      assert.ok(!isPaymentReceived(event));
      assert.deepEqual([event.type, event.subject, event.sequence], ['settlement.succeeded', accepted.merchantTxRef, 2]);
      assert.equal((event.data as { amount: string }).amount, '400.00');

      const rotated = await client.webhookEndpoints.rotateSecret(created.ID);
      assert.notEqual(rotated.Secret, created.Secret);
      assert.deepEqual(await client.webhookEndpoints.recover(created.ID, { since }), { Queued: 1, Next: null });
      const recovered = await eventually(async () => receiver.calls[1], { what: 'the recovered delivery' });
      const again = verifyWebhook(recovered.body, String(recovered.headers['x-service-signature']), rotated.Secret);
      assert.ok(!isPaymentReceived(again));
      assert.equal(again.id, event.id);

      await client.webhookEndpoints.delete(created.ID);
      await assert.rejects(client.webhookEndpoints.get(created.ID), LedgerNotFoundError);
    } finally {
      await receiver.close();
    }
  });
});

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A stand-in API that answers each request with the next scripted response (the last repeats), to fail on purpose. */
async function scriptedApi(script: Scripted[]) {
  const requests: Array<{ method: string; url: string; idempotencyKey: string | undefined }> = [];
  const plan = [...script];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests.push({
        method: request.method!,
        url: request.url!,
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      });
      const next = plan.length > 1 ? plan.shift()! : plan[0]!;
      response.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers });
      response.end(JSON.stringify(next.body ?? { error: `scripted ${next.status}`, code: 'scripted' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    requests,
    client: new LedgerClient({ baseUrl, apiKey: 'sk_test', retry: { retries: 2, baseDelayMs: 0 } }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('the TypeScript client retries only what is safe to repeat', () => {
  const transfer = { merchantTxRef: 'mtx_1', status: 'success' };
  const settle = { amount: '1.00', bankCode: '058', accountNumber: '0123456789' };

  it('retries a GET after 5xx answers', async () => {
    const api = await scriptedApi([{ status: 503 }, { status: 502 }, { status: 200, body: transfer }]);
    try {
      assert.deepEqual(await api.client.transfers.get('mtx_1'), transfer);
      assert.equal(api.requests.length, 3);
    } finally {
      await api.close();
    }
  });

  it('gives up after the configured retries with the last typed error', async () => {
    const api = await scriptedApi([{ status: 503, body: { error: 'database unavailable', code: 'unavailable' } }]);
    try {
      const error = await api.client.transfers.get('mtx_1').catch((caught: unknown) => caught);
      assert.ok(error instanceof LedgerApiError);
      assert.equal(error.status, 503);
      assert.equal(error.message, 'database unavailable');
      assert.equal(api.requests.length, 3);
    } finally {
      await api.close();
    }
  });

  it('retries a settle under the same Idempotency-Key', async () => {
    const api = await scriptedApi([{ status: 502 }, { status: 202, body: { merchantTxRef: 'mtx_1' } }]);
    try {
      await api.client.settlements.settle('va_1', settle);
      assert.equal(api.requests.length, 2);
      assert.ok(api.requests[0]!.idempotencyKey);
      assert.equal(api.requests[1]!.idempotencyKey, api.requests[0]!.idempotencyKey);
    } finally {
      await api.close();
    }
  });

  it('sends a POST without an Idempotency-Key once', async () => {
    const api = await scriptedApi([{ status: 503 }, { status: 200, body: {} }]);
    try {
      const error = await api.client.transfers.lookup({ accountNumber: '0123456789', bankCode: '058' }).catch((caught: unknown) => caught);
      assert.ok(error instanceof LedgerApiError);
      assert.equal(error.status, 503);
      assert.equal(api.requests.length, 1);
    } finally {
      await api.close();
    }
  });

  it('waits a 429’s Retry-After when it is short, and gives a long one back to the caller', async () => {
    const short = await scriptedApi([
      { status: 429, headers: { 'Retry-After': '0' } },
      { status: 200, body: transfer },
    ]);
    try {
      assert.deepEqual(await short.client.transfers.get('mtx_1'), transfer);
      assert.equal(short.requests.length, 2);
    } finally {
      await short.close();
    }
    const long = await scriptedApi([
      { status: 429, headers: { 'Retry-After': '120' }, body: { error: 'rate limited', code: 'rate_limited' } },
    ]);
    try {
      const error = await long.client.transfers.get('mtx_1').catch((caught: unknown) => caught);
      assert.ok(error instanceof LedgerRateLimitError);
      assert.equal(error.retryAfterSeconds, 120);
      assert.equal(long.requests.length, 1);
    } finally {
      await long.close();
    }
  });

  it('does not retry a 4xx', async () => {
    const api = await scriptedApi([
      { status: 404, body: { error: 'transfer not found', code: 'not_found' } },
      { status: 200, body: transfer },
    ]);
    try {
      await assert.rejects(api.client.transfers.get('mtx_1'), LedgerNotFoundError);
      assert.equal(api.requests.length, 1);
    } finally {
      await api.close();
    }
  });

  it('reports an unreachable service as a connection error', async () => {
    const api = await scriptedApi([{ status: 200 }]);
    await api.close();
    const client = new LedgerClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test', retry: { retries: 1, baseDelayMs: 0 } });
    await assert.rejects(client.transfers.get('mtx_1'), LedgerConnectionError);
  });
});
