import assert from 'node:assert/strict';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually, type HttpResponse } from '../../helpers/http';
import { freePort } from '../../helpers/ports';
import { localReplica, type LocalReplica } from '../../helpers/replica';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

const servedFrom = (response: HttpResponse) => response.headers.get('x-read-from');

describe('reads from a replica (DATABASE_REPLICA_URL)', () => {
  let replica: LocalReplica;
  /** Reads with the replica; the lag bound far away, so what sends a read to the primary is the caller's last write. */
  let stack: Stack;
  let tenant: TestTenant;
  let paused = false;
  before(async function () {
    // The first run on a machine makes the replica: a base backup of the whole test cluster, minutes on a loaded machine.
    this.timeout(10 * 60_000);
    replica = await localReplica();
    stack = await startStack({ DATABASE_REPLICA_URL: replica.url, DATABASE_REPLICA_MAX_LAG: '1h' });
    tenant = await createTenant(stack);
  });
  after(() => stack?.close());

  async function pause(): Promise<void> {
    await replica.pauseReplay(true);
    paused = true;
  }
  async function resume(): Promise<void> {
    await replica.pauseReplay(false);
    paused = false;
  }

  const get = (path: string, options: { apiKey?: string; headers?: Record<string, string>; cookie?: string } = {}) =>
    call(stack.apiUrl, 'GET', path, { apiKey: tenant.apiKey, ...options });

  /** Waits until the replica serves the tenant's reads (it has replayed the tenant's last write). */
  const onceOnReplica = (path: string, apiKey = tenant.apiKey) =>
    eventually(
      async () => {
        const response = await get(path, { apiKey });
        return response.status === 200 && servedFrom(response) === 'replica' ? response : undefined;
      },
      { what: `${path} served by the replica` },
    );

  it('a current replica serves statements, balances, books and lists, and every write answers its position', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const provisioned = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey });
    assert.equal(provisioned.status, 200);
    const credit = await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 10_025, fee: 25 }));
    assert.equal(credit.status, 200);
    assert.match(credit.headers.get('x-read-after') ?? '', /^[0-9A-F]+\/[0-9A-F]+$/);

    const page = await onceOnReplica(`/v1/accounts/${account.AccountRef}/statement`);
    assert.equal(page.body.closingBalance, '10000.00');
    for (const path of [
      `/v1/accounts/${account.AccountRef}/balance`,
      `/v1/accounts/${account.AccountRef}`,
      '/v1/accounts',
      '/v1/ledger/balances',
      '/v1/ledger/transactions',
      '/v1/transfers',
      '/v1/customers',
    ]) {
      const response = await get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      assert.equal(servedFrom(response), 'replica', path);
    }
    assert.equal((await get(`/v1/accounts/${account.AccountRef}/balance`)).body.ledgerBalance, '10000.00');
    // Writes and reads that stay on the primary say nothing of where they were read.
    assert.equal(servedFrom(credit), null);
    assert.equal(servedFrom(await get('/v1/me')), null);
  });

  describe('with the replica behind (its replay paused)', () => {
    let account: ProvisionedAccount;
    before(async () => {
      account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 100_000n);
      await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 1_025, fee: 25 }));
      await onceOnReplica(`/v1/accounts/${account.AccountRef}/statement`);
      await pause();
    });
    after(async () => {
      if (paused) await resume();
    });

    it('a read right after a payment credit shows it: served by the primary, which says so', async () => {
      const credit = await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 5_025, fee: 25 }));
      assert.equal(credit.status, 200);
      const page = await statement(stack, tenant.apiKey, account.AccountRef);
      assert.equal(page.status, 200);
      assert.equal(servedFrom(page), 'primary');
      // 1,000.00 funded, then 1,000.00 and 5,000.00 credited (each less its 25.00 fee).
      assert.equal(page.body.closingBalance, '7000.00');
      const books = await get('/v1/ledger/balances');
      assert.equal(servedFrom(books), 'primary');
      const customers = (books.body.accounts as Array<{ code: string; balance: string }>).find((line) => line.code === 'customers');
      assert.ok(customers && Number(customers.balance) >= 7000, books.text);
    });

    it('a read right after a settle shows its debit, whether it presents the settle’s X-Read-After or not', async () => {
      const before = await get(`/v1/accounts/${account.AccountRef}/balance`);
      const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        body: { amount: '250.00', ...DESTINATION },
      });
      assert.equal(settled.status, 202, settled.text);
      const readAfter = settled.headers.get('x-read-after');
      assert.ok(readAfter);
      for (const headers of [{ 'X-Read-After': readAfter }, {}] as Array<Record<string, string>>) {
        const balance = await get(`/v1/accounts/${account.AccountRef}/balance`, { headers });
        assert.equal(servedFrom(balance), 'primary');
        assert.equal(Number(balance.body.availableBalance), Number(before.body.availableBalance) - 250);
        const page = await get(`/v1/accounts/${account.AccountRef}/statement`, { headers });
        assert.equal(servedFrom(page), 'primary');
        assert.equal(page.body.lines.at(-1).entry.ProviderTxnRef, settled.body.merchantTxRef);
        const transfers = await get('/v1/transfers', { headers });
        assert.equal(servedFrom(transfers), 'primary');
        assert.ok(JSON.stringify(transfers.body).includes(settled.body.merchantTxRef));
      }
      // The dashboard's reads of the tenant wait for its writes too.
      const cookie = await dashboardSession(stack, tenant.tenantId);
      const page = await call(stack.apiUrl, 'GET', `/auth/accounts/${account.AccountRef}/statement`, { cookie });
      assert.equal(page.status, 200, page.text);
      assert.equal(servedFrom(page), 'primary');
      assert.ok(JSON.stringify(page.body.lines.at(-1)).includes(settled.body.merchantTxRef), 'the settle is the last line');
      const csv = await call(stack.apiUrl, 'GET', `/auth/accounts/${account.AccountRef}/statement.csv`, { cookie });
      assert.equal(csv.status, 200);
      assert.equal(servedFrom(csv), 'primary');
      assert.ok(csv.text.includes(settled.body.merchantTxRef), 'the settle is on the CSV statement');
    });

    it('a tenant that has written nothing since still reads from the replica (within the lag bound)', async () => {
      const quiet = await createTenant(stack, 'Quiet');
      const accounts = await get('/v1/accounts', { apiKey: quiet.apiKey });
      assert.equal(accounts.status, 200);
      assert.equal(servedFrom(accounts), 'replica');
    });

    it('past the lag bound, every read goes to the primary', async () => {
      const bounded = await startStack({ DATABASE_REPLICA_URL: replica.url, DATABASE_REPLICA_MAX_LAG: '1s' });
      try {
        const quiet = await createTenant(bounded, 'Quiet');
        // The replica's last replayed commit is at most as old as the pause; it ages past 1 s while WAL waits.
        const response = await eventually(
          async () => {
            const accounts = await call(bounded.apiUrl, 'GET', '/v1/accounts', { apiKey: quiet.apiKey });
            return servedFrom(accounts) === 'primary' ? accounts : undefined;
          },
          { what: 'a read sent to the primary by the lag bound' },
        );
        assert.equal(response.status, 200);
      } finally {
        await bounded.close();
      }
    });

    it('a malformed X-Read-After is a 400', async () => {
      const response = await get('/v1/accounts', { headers: { 'X-Read-After': 'yesterday' } });
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'invalid_read_after');
    });

    it('once replay resumes, the replica serves the reads again and shows every write', async () => {
      await resume();
      const fresh = await provisionAccount(stack, tenant.apiKey);
      await sendProviderEvent(stack, paymentEvent({ accountRef: fresh.AccountRef, amount: 2_025, fee: 25 }));
      const page = await onceOnReplica(`/v1/accounts/${fresh.AccountRef}/statement`);
      assert.equal(page.body.closingBalance, '2000.00');
      // What was written while it was paused is on it now.
      const caughtUp = await onceOnReplica(`/v1/accounts/${account.AccountRef}/statement`);
      assert.equal(caughtUp.body.totalCredits, '7000.00');
    });
  });

  it('an unreachable replica: every read is served by the primary, 200', async () => {
    const nowhere = new URL(replica.url);
    nowhere.port = String(await freePort());
    const down = await startStack({ DATABASE_REPLICA_URL: nowhere.toString() });
    try {
      const other = await createTenant(down);
      const account = await provisionAccount(down, other.apiKey);
      await sendProviderEvent(down, paymentEvent({ accountRef: account.AccountRef, amount: 3_025, fee: 25 }));
      for (const path of [`/v1/accounts/${account.AccountRef}/statement`, '/v1/accounts', '/v1/ledger/balances']) {
        const response = await call(down.apiUrl, 'GET', path, { apiKey: other.apiKey });
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        assert.equal(servedFrom(response), 'primary', path);
      }
      assert.equal((await statement(down, other.apiKey, account.AccountRef)).body.closingBalance, '3000.00');
    } finally {
      await down.close();
    }
  });

  it('without a replica, nothing changes: no X-Read-From, no X-Read-After', async () => {
    const plain = await startStack();
    try {
      const other = await createTenant(plain);
      const account = await provisionAccount(plain, other.apiKey);
      const credit = await sendProviderEvent(plain, paymentEvent({ accountRef: account.AccountRef, amount: 3_025, fee: 25 }));
      assert.equal(credit.headers.get('x-read-after'), null);
      const page = await statement(plain, other.apiKey, account.AccountRef);
      assert.equal(page.body.closingBalance, '3000.00');
      assert.equal(servedFrom(page), null);
    } finally {
      await plain.close();
    }
  });
});
