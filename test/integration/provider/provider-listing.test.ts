import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { ProviderRejectedError, ProviderUnavailableError } from '../../../src/provider/errors';
import { createProviderClient } from '../../../src/provider/spec-provider/provider-client';
import type { TransactionListingScope } from '../../../src/provider/provider.types';
import type { ProviderClient, ProviderListedTransaction } from '../../../src/provider/spec-provider/spec-provider.types';
import { createSandbox, type Sandbox } from '../../../src/sandbox/app';

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function control(baseUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe("the provider's transaction listing (client against the sandbox, real HTTP)", () => {
  const silent = createLogger('silent', 'test');
  const env = {
    NODE_ENV: 'test',
    ALLOW_DEVELOPMENT_SETTINGS: 'true',
    LOG_LEVEL: 'silent',
    SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/webhooks/provider',
  };
  let sandbox: Sandbox;
  let sandboxServer: Server;
  let sandboxUrl: string;
  let client: ProviderClient;
  let accountNumber: string;
  const accountRef = 'va_listing_000000000001';

  const pay = async (body: Record<string, unknown>): Promise<string> => {
    const answer = await control(sandboxUrl, 'POST', '/sandbox/payments', { accountRef, suppressWebhook: true, ...body });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.transactionId as string;
  };

  async function everything(
    scope: TransactionListingScope,
    from: Date,
    to: Date,
    limit: number,
  ): Promise<{ pages: number; transactions: ProviderListedTransaction[] }> {
    const transactions: ProviderListedTransaction[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTransactions({ scope, from, to, limit, ...(cursor ? { cursor } : {}) });
      pages += 1;
      transactions.push(...page.transactions);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return { pages, transactions };
  }

  before(async () => {
    sandbox = createSandbox({ config: loadConfig(env), logger: silent });
    ({ server: sandboxServer, url: sandboxUrl } = await listen(sandbox.app.callback()));
    client = createProviderClient(loadConfig({ ...env, PROVIDER_BASE_URL: sandboxUrl }), silent);
  });
  after(async () => {
    await sandbox.close();
    await stop(sandboxServer);
  });
  beforeEach(async () => {
    await control(sandboxUrl, 'POST', '/sandbox/reset');
    accountNumber = (await client.createVirtualAccount({ accountRef, accountName: 'Ada Obi' })).bankAccountNumber;
  });

  it('lists the wallet oldest first, a page at a time: payments and payouts in the provider field names', async () => {
    const from = new Date(Date.now() - 2_000);
    const payments = [
      await pay({ amount: 1000, senderName: 'ADA OBI', narration: 'first' }),
      await pay({ amount: '5025.50' }),
      await pay({ amount: 60_000, fee: 0 }),
    ];
    const transfer = await client.submitTransfer({
      amountKobo: 150_050n,
      accountNumber: '0123456789',
      accountName: 'ADA OBI',
      bankCode: '058',
      merchantTxRef: 'mtx_listing-1',
      senderName: 'Acme',
      narration: 'payout',
    });
    const { pages, transactions } = await everything({ kind: 'wallet' }, from, new Date(Date.now() + 2_000), 2);
    assert.equal(pages, 2);
    assert.deepEqual(
      transactions.map((transaction) => transaction.id),
      [...payments, transfer.id],
    );
    const [first, second, third, payout] = transactions;
    assert.deepEqual(
      { ...first, timeCreated: undefined },
      {
        id: payments[0],
        status: 'SUCCESS',
        amountKobo: 100_000n,
        feeKobo: 1_000n,
        type: 'vact_transfer',
        entryType: 'CREDIT',
        currency: 'NGN',
        merchantTxRef: null,
        recipientAccountNumber: accountNumber,
        senderName: 'ADA OBI',
        narration: 'first',
        timeCreated: undefined,
      },
    );
    assert.deepEqual([second!.amountKobo, second!.feeKobo, third!.amountKobo, third!.feeKobo], [502_550n, 2_500n, 6_000_000n, 0n]);
    assert.deepEqual(
      [
        payout!.entryType,
        payout!.type,
        payout!.merchantTxRef,
        payout!.amountKobo,
        payout!.feeKobo,
        payout!.recipientAccountNumber,
        payout!.status,
      ],
      ['DEBIT', 'transfer', 'mtx_listing-1', 150_050n, 1_000n, '0123456789', 'PROCESSING'],
    );
  });

  it("filters by creation time to the second, and lists one virtual account's credits with amounts as text", async () => {
    const from = new Date(Date.now() - 2_000);
    const mine = await pay({ amount: 1000 });
    const otherNumber = (await client.createVirtualAccount({ accountRef: 'va_listing_000000000002', accountName: 'Bisi Ade' }))
      .bankAccountNumber;
    await control(sandboxUrl, 'POST', '/sandbox/payments', { accountRef: 'va_listing_000000000002', amount: 2000, suppressWebhook: true });
    const to = new Date(Date.now() + 2_000);
    assert.deepEqual(
      (await everything({ kind: 'virtual_account', accountNumber }, from, to, 10)).transactions.map((transaction) => transaction.id),
      [mine],
    );
    assert.equal(
      (await everything({ kind: 'virtual_account', accountNumber: otherNumber }, from, to, 10)).transactions[0]?.amountKobo,
      200_000n,
    );
    assert.deepEqual((await everything({ kind: 'virtual_account', accountNumber: '0000000000' }, from, to, 10)).transactions, []);
    assert.deepEqual(
      (await everything({ kind: 'wallet' }, new Date(Date.now() + 60_000), new Date(Date.now() + 120_000), 10)).transactions,
      [],
    );
    assert.deepEqual(
      (await everything({ kind: 'wallet' }, new Date(Date.now() - 120_000), new Date(Date.now() - 60_000), 10)).transactions,
      [],
    );

    // On the wire: numbers in the wallet listing, decimal text in a virtual account's, as the provider writes them.
    const token = (
      await control(sandboxUrl, 'POST', '/v1/auth/token/issue', { grant_type: 'client_credentials', client_id: 'c', client_secret: 's' })
    ).body.data.access_token;
    const wire = async (path: string) =>
      (await (await fetch(`${sandboxUrl}${path}`, { headers: { authorization: `Bearer ${token}`, accountId: 'acct' } })).json()) as {
        data: { results: Array<{ amount: unknown }>; cursor: string };
      };
    assert.equal((await wire('/v1/transactions/virtual?virtual_account=' + accountNumber)).data.results[0]!.amount, '1000.00');
    assert.equal((await wire('/v1/transactions/accounts?limit=1')).data.results[0]!.amount, 1000);
    assert.notEqual((await wire('/v1/transactions/accounts?limit=1')).data.cursor, '');
    assert.equal((await wire('/v1/transactions/accounts?limit=5')).data.cursor, '', 'an empty cursor ends the listing');
  });

  it('refuses a cursor it did not issue and a window that ends before it starts, with a definite 400', async () => {
    const isRejected = (error: unknown) => error instanceof ProviderRejectedError && error.httpStatus === 400;
    await assert.rejects(
      client.listTransactions({ scope: { kind: 'wallet' }, from: new Date(), to: new Date(), limit: 10, cursor: 'not-a-cursor' }),
      isRejected,
    );
    await assert.rejects(
      client.listTransactions({ scope: { kind: 'wallet' }, from: new Date(), to: new Date(Date.now() - 60_000), limit: 10 }),
      isRejected,
    );
  });

  it('never sends a suppressed payment webhook, yet shows the payment to lookups and listings', async () => {
    const transactionId = await pay({ amount: 1000 });
    assert.deepEqual((await control(sandboxUrl, 'GET', '/sandbox/webhooks')).body.events, []);
    assert.equal((await client.getTransaction(transactionId))?.status, 'SUCCESS');
    const page = await client.listTransactions({
      scope: { kind: 'wallet' },
      from: new Date(Date.now() - 5_000),
      to: new Date(Date.now() + 5_000),
      limit: 10,
    });
    assert.deepEqual(
      page.transactions.map((transaction) => transaction.id),
      [transactionId],
    );
  });

  it("keeps the wallet balance, and changes a payment's status after the fact (a late success, a recall)", async () => {
    const late = await pay({ amount: 1000, status: 'PROCESSING' });
    const paid = await pay({ amount: 5025 });
    assert.deepEqual(await client.getWalletBalance(), { amountKobo: 500_000n, currency: 'NGN' });
    assert.equal((await control(sandboxUrl, 'POST', `/sandbox/payments/${late}/status`, { status: 'SUCCESS' })).status, 200);
    assert.equal((await control(sandboxUrl, 'POST', `/sandbox/payments/${paid}/status`, { status: 'REFUND' })).status, 200);
    assert.deepEqual(await client.getWalletBalance(), { amountKobo: 99_000n, currency: 'NGN' });
    assert.equal((await client.getTransaction(paid))?.status, 'REFUND');
    assert.equal((await control(sandboxUrl, 'POST', '/sandbox/payments/nobody/status', { status: 'REFUND' })).status, 404);
    assert.equal((await control(sandboxUrl, 'POST', `/sandbox/payments/${paid}/status`, { status: 'LOST' })).status, 400);
  });

  it('treats a listing it cannot read as the provider being unavailable', async () => {
    let body = '';
    const scripted = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        req.url === '/v1/auth/token/issue'
          ? JSON.stringify({ code: '00', data: { access_token: 'tok', expiresAt: Date.now() / 1000 + 3600 } })
          : body,
      );
    });
    try {
      const scriptedClient = createProviderClient(loadConfig({ ...env, PROVIDER_BASE_URL: scripted.url }), silent);
      const list = () => scriptedClient.listTransactions({ scope: { kind: 'wallet' }, from: new Date(), to: new Date(), limit: 10 });
      for (const data of [
        { results: 'none' },
        { results: [{ id: 'x', status: 'SUCCESS', amount: 'ten', timeCreated: 't' }] },
        { results: [{ id: 'x', status: 'SUCCESS', amount: 1.005, timeCreated: 't' }] },
      ]) {
        body = JSON.stringify({ code: '00', data });
        await assert.rejects(list(), (error: unknown) => error instanceof ProviderUnavailableError, JSON.stringify(data));
      }
      body = JSON.stringify({
        code: '00',
        data: { results: [{ id: 'x', status: 'PAYMENT_SUCCESSFUL', amount: '100.0', fixedCharge: '0.5', timeCreated: 't' }], cursor: null },
      });
      const page = await list();
      assert.deepEqual(
        [page.nextCursor, page.transactions[0]?.amountKobo, page.transactions[0]?.feeKobo, page.transactions[0]?.entryType],
        [null, 10_000n, 50n, null],
      );
    } finally {
      await stop(scripted.server);
    }
  });
});
