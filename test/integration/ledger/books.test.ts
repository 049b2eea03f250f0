import assert from 'node:assert/strict';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, SPEC_ENTRY_FIELDS } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface Posting {
  account: string;
  accountRef: string | null;
  amount: string;
  entryId: string | null;
  status: string | null;
}

interface Transaction {
  id: string;
  kind: string;
  reference: string | null;
  createdAt: string;
  postings: Posting[];
}

/** Kobo from a signed naira string, to add amounts exactly. */
const kobo = (amount: string) => BigInt(amount.replace('.', ''));

describe('the books: GET /v1/ledger/balances and /v1/ledger/transactions', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack({ SETTLEMENT_RETRY_SCHEDULE: '200ms', SETTLEMENT_POLL_INTERVAL: '200ms' }, { worker: true });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  async function balances(apiKey: string): Promise<Record<string, string>> {
    const response = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey });
    assert.equal(response.status, 200);
    const lines = response.body.accounts as Array<{ code: string; type: string; balance: string }>;
    return { ...Object.fromEntries(lines.map((line) => [line.code, line.balance])), total: response.body.total };
  }

  async function journal(
    apiKey: string,
    query = '',
  ): Promise<{ transactions: Transaction[]; pagination: { nextCursor: string | null; hasMore: boolean } }> {
    const response = await call(stack.apiUrl, 'GET', `/v1/ledger/transactions${query}`, { apiKey });
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  it('after a payment and a settlement that pays, the balances total 0.00 and clearing, provider fees and payouts in transit carry them', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const payment = paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25 });
    assert.equal((await sendProviderEvent(stack, payment)).status, 200);
    assert.deepEqual(await balances(tenant.apiKey), {
      clearing: '-5025.00',
      provider_fees: '25.00',
      payouts_in_transit: '0.00',
      costs: '0.00',
      customers: '5000.00',
      total: '0.00',
    });

    const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber: '0123456789' },
    });
    assert.equal(settled.status, 202);
    const merchantTxRef = settled.body.merchantTxRef as string;
    await eventually(
      async () => (await call(stack.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey: tenant.apiKey })).body.status === 'success',
      { what: 'the payout' },
    );
    // The payout left the provider's balance for the tenant, with its 10.00 fee, which the tenant bears.
    assert.deepEqual(await balances(tenant.apiKey), {
      clearing: '-4615.00',
      provider_fees: '25.00',
      payouts_in_transit: '0.00',
      costs: '-10.00',
      customers: '4600.00',
      total: '0.00',
    });

    const { transactions } = await journal(tenant.apiKey);
    assert.deepEqual(transactions.map((transaction) => transaction.kind).sort(), ['payment', 'payout', 'payout_fee', 'settlement']);
    for (const transaction of transactions)
      assert.equal(
        transaction.postings.reduce((sum, posting) => sum + kobo(posting.amount), 0n),
        0n,
        `${transaction.kind} is balanced`,
      );
    const credit = transactions.at(-1)!;
    assert.equal(credit.kind, 'payment', 'newest first');
    assert.equal(credit.reference, (payment.data as { transaction: { transactionId: string } }).transaction.transactionId);
    assert.deepEqual(
      credit.postings.map(({ account, accountRef, amount, status }) => ({ account, accountRef, amount, status })),
      [
        { account: 'customer', accountRef: account.AccountRef, amount: '5000.00', status: 'provisional' },
        { account: 'clearing', accountRef: null, amount: '-5025.00', status: null },
        { account: 'provider_fees', accountRef: null, amount: '25.00', status: null },
      ],
    );
    const settlement = transactions.find((transaction) => transaction.kind === 'settlement')!;
    assert.equal(settlement.reference, merchantTxRef);
    assert.deepEqual(
      settlement.postings.map(({ account, amount, status }) => ({ account, amount, status })),
      [
        { account: 'customer', amount: '-400.00', status: 'confirmed' },
        { account: 'payouts_in_transit', amount: '400.00', status: null },
      ],
    );
  });

  it('after a settlement that fails and one the provider refunds once paid, the books are back where they were (the refund returned the fee too)', async () => {
    const own = await createTenant(stack);
    const account = await provisionAccount(stack, own.apiKey);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 10_050, fee: 50 }))).status, 200);
    const before = await balances(own.apiKey);
    assert.deepEqual(before, {
      clearing: '-10050.00',
      provider_fees: '50.00',
      payouts_in_transit: '0.00',
      costs: '0.00',
      customers: '10000.00',
      total: '0.00',
    });
    const failing = '0123457001';
    await call(stack.sandboxUrl, 'POST', '/sandbox/profiles', {
      body: { match: { accountNumber: failing }, final: 'PAYMENT_FAILED', processingMs: null },
    });
    const settle = async (accountNumber: string) => {
      const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: own.apiKey,
        body: { amount: '700.00', bankCode: '058', accountNumber },
      });
      assert.equal(response.status, 202, response.text);
      return response.body.merchantTxRef as string;
    };
    const statusOf = async (merchantTxRef: string) =>
      (await call(stack.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey: own.apiKey })).body.status as string;

    const failed = await settle(failing);
    await eventually(async () => (await statusOf(failed)) === 'failed', { what: 'the failed settlement' });
    assert.deepEqual(await balances(own.apiKey), before, 'a failed payout moves nothing in the end');

    const refunded = await settle('0123456789');
    await eventually(async () => (await statusOf(refunded)) === 'success', { what: 'the payout' });
    assert.deepEqual(await balances(own.apiKey), {
      clearing: '-9340.00',
      provider_fees: '50.00',
      payouts_in_transit: '0.00',
      costs: '-10.00',
      customers: '9300.00',
      total: '0.00',
    });
    assert.equal((await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${refunded}-1/refund`)).status, 200);
    await eventually(async () => (await statusOf(refunded)) === 'refunded', { what: 'the refund' });
    // The provider gave back the payout and its fee.
    assert.deepEqual(await balances(own.apiKey), before);
  });

  it("shows another tenant none of it: zero balances and an empty journal, and not even by the dashboard's transaction filter", async () => {
    const owner = await createTenant(stack, 'Owner');
    const account = await provisionAccount(stack, owner.apiKey);
    const entry = await fundAccount(stack, account.ID, 70_000n);
    const other = await createTenant(stack, 'Other');
    assert.deepEqual(await balances(other.apiKey), {
      clearing: '0.00',
      provider_fees: '0.00',
      payouts_in_transit: '0.00',
      costs: '0.00',
      customers: '0.00',
      total: '0.00',
    });
    assert.deepEqual(await journal(other.apiKey), { transactions: [], pagination: { limit: 50, nextCursor: null, hasMore: false } });

    const ownersView = await call(stack.apiUrl, 'GET', `/auth/ledger/transactions?transaction=${entry.transactionId}`, {
      cookie: await dashboardSession(stack, owner.tenantId),
    });
    assert.deepEqual(
      ownersView.body.transactions.map((transaction: Transaction) => transaction.id),
      [entry.transactionId],
    );
    const othersView = await call(stack.apiUrl, 'GET', `/auth/ledger/transactions?transaction=${entry.transactionId}`, {
      cookie: await dashboardSession(stack, other.tenantId),
    });
    assert.equal(othersView.status, 200);
    assert.deepEqual(othersView.body.transactions, []);
  });

  it('answers 400 with the reason for a bad cursor or limit', async () => {
    for (const query of ['?after=not-a-cursor', '?after=12345']) {
      const response = await call(stack.apiUrl, 'GET', `/v1/ledger/transactions${query}`, { apiKey: tenant.apiKey });
      assert.deepEqual([response.status, response.body.error, response.body.code], [400, 'invalid cursor', 'invalid_cursor'], query);
    }
    for (const limit of ['0', '201', '-1', '1.5', 'abc', '']) {
      const response = await call(stack.apiUrl, 'GET', `/v1/ledger/transactions?limit=${limit}`, { apiKey: tenant.apiKey });
      assert.deepEqual([response.status, response.body.error], [400, 'limit must be an integer from 1 to 200'], `limit=${limit}`);
    }
    const cookie = await dashboardSession(stack, tenant.tenantId);
    const badFilter = await call(stack.apiUrl, 'GET', '/auth/ledger/transactions?transaction=nope', { cookie });
    assert.deepEqual([badFilter.status, badFilter.body.error], [400, 'transaction must be a transaction id']);
  });

  it('pages the journal newest first, each transaction once, and the dashboard statement links each entry to its transaction', async () => {
    const paging = await createTenant(stack, 'Paging');
    const account = await provisionAccount(stack, paging.apiKey);
    const entries = [];
    for (let index = 1; index <= 7; index += 1) entries.push(await fundAccount(stack, account.ID, BigInt(index) * 100n));

    const seen: Transaction[] = [];
    const pages: number[] = [];
    let query = '?limit=3';
    for (;;) {
      const page = await journal(paging.apiKey, query);
      seen.push(...page.transactions);
      pages.push(page.transactions.length);
      if (!page.pagination.hasMore) {
        assert.equal(page.pagination.nextCursor, null);
        break;
      }
      query = `?limit=3&after=${page.pagination.nextCursor}`;
    }
    assert.deepEqual(pages, [3, 3, 1]);
    assert.deepEqual(
      seen.map((transaction) => transaction.id),
      entries.map((entry) => entry.transactionId).reverse(),
    );
    assert.deepEqual(
      seen.map((transaction) => transaction.postings.find((posting) => posting.account === 'customer')!.amount),
      ['7.00', '6.00', '5.00', '4.00', '3.00', '2.00', '1.00'],
    );

    const cookie = await dashboardSession(stack, paging.tenantId);
    const dashboardStatement = await call(stack.apiUrl, 'GET', `/auth/accounts/${account.AccountRef}/statement`, { cookie });
    assert.deepEqual(
      dashboardStatement.body.lines.map((line: { entry: { TransactionId: string } }) => line.entry.TransactionId),
      entries.map((entry) => entry.transactionId),
    );
    const publicStatement = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/statement`, { apiKey: paging.apiKey });
    // Payment and settlement lines are exactly the spec's statement entry: only a transfer's line adds a field (CounterpartAccountRef).
    assert.deepEqual(
      publicStatement.body.lines.map((line: { entry: Record<string, unknown> }) => Object.keys(line.entry)),
      entries.map(() => SPEC_ENTRY_FIELDS),
    );
  });
});
