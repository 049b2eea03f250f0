import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

/** A list's query string with a metadata filter, as a client writes it: metadata[key]=value, brackets escaped. */
const filter = (pairs: Record<string, string>) =>
  '?' + new URLSearchParams(Object.entries(pairs).map(([key, value]): [string, string] => [`metadata[${key}]`, value])).toString();

describe('metadata on accounts, settlements and transfers', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let other: TestTenant;
  before(async () => {
    stack = await startStack({ EVENT_DISPATCH_INTERVAL: '100ms', SETTLEMENT_FUNDS: 'ledger' }, { worker: true });
    tenant = await createTenant(stack);
    other = await createTenant(stack, 'Other Tenant');
  });
  after(() => stack.close());

  const get = (path: string, apiKey = tenant.apiKey) => call(stack.apiUrl, 'GET', path, { apiKey });

  const eventsOf = async (tenantId: string, subject: string) =>
    (await stack.infra.db('tenant_events').where({ tenant_id: tenantId, subject }).orderBy('sequence').select('type', 'data')) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  describe('accounts', () => {
    it('keeps the metadata given at provisioning: on the answer, a replay, GET one and the list', async () => {
      const orderId = `A-${randomUUID()}`;
      const body = { externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', metadata: { orderId, 'loan.id': 'L-9' } };
      const key = randomUUID();
      const made = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.body.Metadata, { orderId, 'loan.id': 'L-9' });
      const replay = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } });
      assert.equal(replay.status, 201, replay.text);
      assert.equal(replay.body.AccountRef, made.body.AccountRef);
      assert.deepEqual(replay.body.Metadata, { orderId, 'loan.id': 'L-9' });
      assert.deepEqual((await get(`/v1/accounts/${made.body.AccountRef}`)).body.Metadata, { orderId, 'loan.id': 'L-9' });
      const listed = await get(`/v1/accounts${filter({ orderId })}`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.accounts.map((account: ProvisionedAccount) => [account.AccountRef, account.Metadata]),
        [[made.body.AccountRef, { orderId, 'loan.id': 'L-9' }]],
      );
    });

    it("a filter returns exactly the tenant's accounts carrying every pair given, never another tenant's", async () => {
      const orderId = `A-${randomUUID()}`;
      const tagged = await provisionAccount(stack, tenant.apiKey, { metadata: { orderId, kind: 'loan' } });
      const taggedToo = await provisionAccount(stack, tenant.apiKey, { metadata: { orderId, kind: 'order' } });
      await provisionAccount(stack, tenant.apiKey, { metadata: { orderId: `${orderId}-other` } });
      await provisionAccount(stack, tenant.apiKey);
      const elsewhere = await provisionAccount(stack, other.apiKey, { metadata: { orderId, kind: 'loan' } });
      const refsOf = async (query: string, apiKey = tenant.apiKey) => {
        const response = await get(`/v1/accounts${query}`, apiKey);
        assert.equal(response.status, 200, response.text);
        return (response.body.accounts as ProvisionedAccount[]).map((account) => account.AccountRef).sort();
      };
      assert.deepEqual(await refsOf(filter({ orderId })), [tagged.AccountRef, taggedToo.AccountRef].sort());
      assert.deepEqual(await refsOf(filter({ orderId, kind: 'loan' })), [tagged.AccountRef]);
      assert.deepEqual(await refsOf(filter({ orderId }), other.apiKey), [elsewhere.AccountRef]);
      assert.deepEqual(await refsOf(filter({ nobodyUsesThis: 'x' })), []);
    });

    it('PATCH merges metadata into the account (null deletes a key), bounded as on create, and audited', async () => {
      const account = await provisionAccount(stack, tenant.apiKey, { metadata: { orderId: 'A-1', stage: 'new' } });
      const patch = (body: unknown, apiKey = tenant.apiKey) =>
        call(stack.apiUrl, 'PATCH', `/v1/accounts/${account.AccountRef}`, { apiKey, body });
      const changed = await patch({ metadata: { stage: 'paid', invoice: 'INV-7', orderId: null } });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.body.Metadata, { stage: 'paid', invoice: 'INV-7' });
      assert.deepEqual((await get(`/v1/accounts/${account.AccountRef}`)).body.Metadata, { stage: 'paid', invoice: 'INV-7' });
      assert.deepEqual(
        (await get(`/v1/accounts${filter({ invoice: 'INV-7', stage: 'paid' })}`)).body.accounts.map(
          (a: ProvisionedAccount) => a.AccountRef,
        ),
        [account.AccountRef],
      );
      const audit = await stack.infra
        .db('audit_log')
        .where({ tenant_id: tenant.tenantId, action: 'account.metadata_changed', target_id: account.AccountRef })
        .select('actor', 'detail');
      assert.deepEqual(audit, [{ actor: 'API key', detail: { set: ['stage', 'invoice'], deleted: ['orderId'] } }]);

      const tooMany = Object.fromEntries(Array.from({ length: 19 }, (_, index) => [`k${index}`, 'v']));
      const overflow = await patch({ metadata: tooMany });
      assert.equal(overflow.status, 400, overflow.text);
      assert.match(overflow.body.error, /at most 20 keys/);
      assert.equal((await patch({ metadata: { stage: 5 } })).body.error, 'metadata.stage must be a string (or null to delete the key)');
      assert.equal((await patch({ metadata: { stage: 'x' } }, other.apiKey)).status, 404);
      assert.deepEqual((await get(`/v1/accounts/${account.AccountRef}`)).body.Metadata, { stage: 'paid', invoice: 'INV-7' });
    });

    it('refuses metadata out of bounds with a 400 naming the key, and writes nothing', async () => {
      const provision = (metadata: unknown) =>
        call(stack.apiUrl, 'POST', '/v1/accounts', {
          apiKey: tenant.apiKey,
          body: { externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', metadata },
        });
      const refusals: Array<[unknown, string | RegExp]> = [
        [Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])), 'metadata must have at most 20 keys'],
        [{ note: 'x'.repeat(501) }, 'metadata.note must be at most 500 characters'],
        [{ amount: 5 }, 'metadata.amount must be a string'],
        [{ nested: { a: 'b' } }, 'metadata.nested must be a string'],
        [{ 'bad key!': 'v' }, /^metadata key "bad key!" must be 1 to 40 characters/],
        [{ ['k'.repeat(41)]: 'v' }, /^metadata key "k{41}" must be 1 to 40 characters/],
        [Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`k${index}`, 'v'.repeat(450)])), /at most 4096 bytes/],
        ['orderId=A-17', 'metadata must be an object of string keys to string values'],
      ];
      const before = await stack.infra.db('virtual_accounts').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>();
      for (const [metadata, message] of refusals) {
        const response = await provision(metadata);
        assert.equal(response.status, 400, response.text);
        if (typeof message === 'string') assert.equal(response.body.error, message);
        else assert.match(response.body.error, message);
      }
      const after = await stack.infra.db('virtual_accounts').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>();
      assert.deepEqual(after, before);
    });

    it('refuses a filter naming a bad key, or a key given twice, with a 400', async () => {
      const badKey = await get(`/v1/accounts${filter({ 'bad key': 'x' })}`);
      assert.equal(badKey.status, 400, badKey.text);
      assert.match(badKey.body.error, /^metadata key "bad key" must be 1 to 40 characters/);
      const nested = await get(`/v1/accounts?${encodeURIComponent('metadata[a][b]')}=x`);
      assert.equal(nested.status, 400, nested.text);
      const twice = await get(`/v1/accounts?${encodeURIComponent('metadata[a]')}=x&${encodeURIComponent('metadata[a]')}=y`);
      assert.equal(twice.status, 400, twice.text);
      assert.equal(twice.body.error, 'metadata.a must be a string');
    });
  });

  describe('settlements', () => {
    it("keep the metadata of the settle: on its answer, a replay, GET, the list's filter (this tenant's only) and its events", async () => {
      const orderId = `A-${randomUUID()}`;
      const account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 100_000n);
      const body = { amount: '10.00', ...DESTINATION, metadata: { orderId } };
      const key = randomUUID();
      const settle = (apiKey = tenant.apiKey, target = account) =>
        call(stack.apiUrl, 'POST', `/v1/accounts/${target.AccountRef}/settle`, { apiKey, body, headers: { 'Idempotency-Key': key } });
      const made = await settle();
      assert.equal(made.status, 202, made.text);
      assert.deepEqual(made.body.metadata, { orderId });
      const replay = await settle();
      assert.equal(replay.body.merchantTxRef, made.body.merchantTxRef);
      assert.deepEqual(replay.body.metadata, { orderId });
      assert.deepEqual((await get(`/v1/transfers/${made.body.merchantTxRef}`)).body.metadata, { orderId });

      const untagged = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        body: { amount: '1.00', ...DESTINATION },
      });
      assert.equal(untagged.status, 202, untagged.text);
      assert.equal(untagged.body.metadata, undefined);
      const otherAccount = await provisionAccount(stack, other.apiKey);
      await fundAccount(stack, otherAccount.ID, 100_000n);
      const elsewhere = await settle(other.apiKey, otherAccount);
      assert.equal(elsewhere.status, 202, elsewhere.text);

      const listed = await get(`/v1/transfers${filter({ orderId })}`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.transfers.map((settlement: { merchantTxRef: string; metadata: unknown }) => [
          settlement.merchantTxRef,
          settlement.metadata,
        ]),
        [[made.body.merchantTxRef, { orderId }]],
      );
      assert.deepEqual((await get(`/v1/transfers${filter({ nobodyUsesThis: 'x' })}`)).body.transfers, []);
      const all = await get('/v1/transfers');
      assert.ok(
        all.body.transfers.some((settlement: { merchantTxRef: string }) => settlement.merchantTxRef === untagged.body.merchantTxRef),
      );

      const events = await eventually(
        async () => {
          const told = await eventsOf(tenant.tenantId, made.body.merchantTxRef);
          return told.some((event) => event.type === 'settlement.succeeded') && told;
        },
        { what: 'the settlement paid' },
      );
      assert.deepEqual(
        events.map((event) => [event.type, event.data.metadata]),
        [
          ['settlement.created', { orderId }],
          ['settlement.succeeded', { orderId }],
        ],
      );
      const untaggedCreated = (await eventsOf(tenant.tenantId, untagged.body.merchantTxRef)).find(
        (event) => event.type === 'settlement.created',
      );
      assert.ok(untaggedCreated);
      assert.equal('metadata' in untaggedCreated.data, false);
    });

    it('refuse metadata out of bounds with a 400 naming the key, making no settlement', async () => {
      const account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 100_000n);
      const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        body: { amount: '10.00', ...DESTINATION, metadata: { orderId: 17 } },
      });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error, 'metadata.orderId must be a string');
      assert.deepEqual(await stack.infra.db('settlements').where({ account_id: account.ID }).select('id'), []);
    });
  });

  describe('transfers between accounts', () => {
    it("keep the metadata of the transfer: on its answer, a replay, GET, the lists' filters (this tenant's only) and transfer.completed", async () => {
      const orderId = `A-${randomUUID()}`;
      const from = await provisionAccount(stack, tenant.apiKey);
      const to = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, from.ID, 100_000n);
      const key = randomUUID();
      const body = { toAccountRef: to.AccountRef, amount: '5.00', metadata: { orderId } };
      const move = (apiKey = tenant.apiKey, source = from, request: Record<string, unknown> = body, idempotencyKey = key) =>
        call(stack.apiUrl, 'POST', `/v1/accounts/${source.AccountRef}/transfers`, {
          apiKey,
          body: request,
          headers: { 'Idempotency-Key': idempotencyKey },
        });
      const made = await move();
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.body.metadata, { orderId });
      const replay = await move();
      assert.equal(replay.body.id, made.body.id);
      assert.deepEqual(replay.body.metadata, { orderId });
      assert.deepEqual((await get(`/v1/transfers/internal/${made.body.id}`)).body.metadata, { orderId });
      const untagged = await move(tenant.apiKey, from, { toAccountRef: to.AccountRef, amount: '1.00' }, randomUUID());
      assert.equal(untagged.status, 201, untagged.text);

      const otherFrom = await provisionAccount(stack, other.apiKey);
      const otherTo = await provisionAccount(stack, other.apiKey);
      await fundAccount(stack, otherFrom.ID, 100_000n);
      const elsewhere = await move(
        other.apiKey,
        otherFrom,
        { toAccountRef: otherTo.AccountRef, amount: '5.00', metadata: { orderId } },
        randomUUID(),
      );
      assert.equal(elsewhere.status, 201, elsewhere.text);

      const idsOf = async (path: string, apiKey = tenant.apiKey) => {
        const response = await get(path, apiKey);
        assert.equal(response.status, 200, response.text);
        return (response.body.transfers as Array<{ id: string }>).map((transfer) => transfer.id);
      };
      assert.deepEqual(await idsOf(`/v1/transfers/internal${filter({ orderId })}`), [made.body.id]);
      assert.deepEqual(await idsOf(`/v1/transfers/internal${filter({ orderId })}`, other.apiKey), [elsewhere.body.id]);
      assert.deepEqual(await idsOf(`/v1/accounts/${to.AccountRef}/transfers${filter({ orderId })}`), [made.body.id]);
      assert.deepEqual(await idsOf(`/v1/transfers/internal${filter({ nobodyUsesThis: 'x' })}`), []);
      assert.deepEqual(await idsOf(`/v1/accounts/${to.AccountRef}/transfers`), [untagged.body.id, made.body.id]);

      const [completed] = await eventsOf(tenant.tenantId, made.body.id);
      assert.equal(completed?.type, 'transfer.completed');
      assert.deepEqual(completed.data.metadata, { orderId });
      const [untaggedCompleted] = await eventsOf(tenant.tenantId, untagged.body.id);
      assert.equal('metadata' in untaggedCompleted!.data, false);
    });
  });
});
