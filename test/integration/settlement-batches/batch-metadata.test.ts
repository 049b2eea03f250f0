import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { approvalUsers, asUser, freshAccountNumber, fundedAccount } from '../../helpers/approvals';
import type { ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface BatchItemView {
  reference: string;
  merchantTxRef: string | null;
  status: string;
  metadata?: Record<string, string>;
}

interface Batch {
  id: string;
  error?: string;
  details?: Array<{ path: string; message: string }>;
  status: string;
  metadata?: Record<string, string>;
  items: BatchItemView[];
  batches: Array<{ id: string; metadata?: Record<string, string> }>;
}

const FINAL = ['completed', 'completed_with_failures', 'cancelled'];

/** A list's query string with a metadata filter, as a client writes it: metadata[key]=value, brackets escaped. */
const filter = (pairs: Record<string, string>) =>
  '?' + new URLSearchParams(Object.entries(pairs).map(([key, value]): [string, string] => [`metadata[${key}]`, value])).toString();

/**
 * Metadata on settlement batches and their items, over HTTP with the worker running the batch: fixed when the batch is
 * made, answered on every read and replay, carried by the batch's events, filterable on the batches list and on a batch's
 * items (the tenant's own only), and each item's settlement carries the item's metadata (its reads and events too).
 */
describe('metadata on settlement batches and their items', function () {
  this.timeout(240_000);
  let stack: Stack;
  let tenant: TestTenant;
  let other: TestTenant;

  before(async () => {
    stack = await startStack(
      { SETTLEMENT_POLL_INTERVAL: '1s', SETTLEMENT_RETRY_SCHEDULE: '500ms', SETTLEMENT_BATCH_POLL_INTERVAL: '500ms' },
      { worker: true },
    );
    tenant = await createTenant(stack, 'Batch Metadata Tenant');
    other = await createTenant(stack, 'Other Batch Tenant');
  });
  after(() => stack?.close());

  const post = (body: unknown, key: string = randomUUID(), apiKey = tenant.apiKey) =>
    call<Batch>(stack.apiUrl, 'POST', '/v1/settlement-batches', { apiKey, body, headers: { 'Idempotency-Key': key } });
  const get = (path: string, apiKey = tenant.apiKey) => call<Batch>(stack.apiUrl, 'GET', path, { apiKey });

  const item = (account: ProvisionedAccount, reference: string, metadata?: Record<string, string>) => ({
    reference,
    accountRef: account.AccountRef,
    amount: '10.00',
    bankCode: '058',
    accountNumber: freshAccountNumber(),
    ...(metadata ? { metadata } : {}),
  });

  const eventsOf = async (tenantId: string, subject: string) =>
    (await stack.infra.db('tenant_events').where({ tenant_id: tenantId, subject }).orderBy('sequence').select('type', 'data')) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  async function finalBatch(id: string): Promise<Batch> {
    return eventually(
      async () => {
        const batch = (await get(`/v1/settlement-batches/${id}`)).body;
        if (!FINAL.includes(batch.status)) throw new Error(`last seen ${batch.status}`);
        return batch;
      },
      { intervalMs: 500, what: `batch ${id} to end` },
    );
  }

  it("keeps the batch's and each item's metadata: on the answer, a replay, GET, both filters (this tenant's only), the items' settlements and the events", async () => {
    const run = `run-${randomUUID()}`;
    const account = await fundedAccount(stack, tenant.apiKey);
    const body = {
      metadata: { run, payroll: 'november' },
      items: [item(account, 'pay-a', { orderId: 'A-17', run }), item(account, 'pay-b', { orderId: 'B-2', run }), item(account, 'pay-c')],
    };
    const key = randomUUID();
    const created = await post(body, key);
    assert.equal(created.status, 202, created.text);
    assert.deepEqual(created.body.metadata, { run, payroll: 'november' });
    const replay = await post(body, key);
    assert.deepEqual([replay.status, replay.body.id, replay.body.metadata], [202, created.body.id, { run, payroll: 'november' }]);
    const otherMetadata = await post({ ...body, metadata: { run: 'another' } }, key);
    assert.deepEqual([otherMetadata.status, otherMetadata.body.error], [409, 'Idempotency-Key was already used with a different request']);
    const otherItemMetadata = await post(
      { ...body, items: [{ ...body.items[0]!, metadata: { orderId: 'A-18' } }, ...body.items.slice(1)] },
      key,
    );
    assert.equal(otherItemMetadata.status, 409, otherItemMetadata.text);

    const elsewhereAccount = await fundedAccount(stack, other.apiKey);
    const elsewhere = await post(
      { metadata: { run }, items: [item(elsewhereAccount, 'pay-a', { orderId: 'A-17', run })] },
      randomUUID(),
      other.apiKey,
    );
    assert.equal(elsewhere.status, 202, elsewhere.text);
    const untagged = await post({ items: [item(account, 'pay-d')] });
    assert.equal(untagged.status, 202, untagged.text);
    assert.equal('metadata' in untagged.body, false);

    const batchIds = async (query: string, apiKey = tenant.apiKey) => {
      const listed = await get(`/v1/settlement-batches${query}`, apiKey);
      assert.equal(listed.status, 200, listed.text);
      return listed.body.batches.map((batch) => [batch.id, batch.metadata]);
    };
    assert.deepEqual(await batchIds(filter({ run })), [[created.body.id, { run, payroll: 'november' }]]);
    assert.deepEqual(await batchIds(filter({ run, payroll: 'november' })), [[created.body.id, { run, payroll: 'november' }]]);
    assert.deepEqual(await batchIds(filter({ run }), other.apiKey), [[elsewhere.body.id, { run }]]);
    assert.deepEqual(await batchIds(filter({ run, payroll: 'december' })), []);

    const ended = await finalBatch(created.body.id);
    assert.equal(ended.status, 'completed', JSON.stringify(ended));
    assert.deepEqual(ended.metadata, { run, payroll: 'november' });
    assert.deepEqual(
      ended.items.map((view) => [view.reference, view.metadata]),
      [
        ['pay-a', { orderId: 'A-17', run }],
        ['pay-b', { orderId: 'B-2', run }],
        ['pay-c', undefined],
      ],
    );
    const itemsOf = async (query: string, id = created.body.id, apiKey = tenant.apiKey) => {
      const page = await get(`/v1/settlement-batches/${id}${query}`, apiKey);
      assert.equal(page.status, 200, page.text);
      return page.body.items.map((view) => view.reference);
    };
    assert.deepEqual(await itemsOf(filter({ orderId: 'A-17' })), ['pay-a']);
    assert.deepEqual(await itemsOf(filter({ run })), ['pay-a', 'pay-b']);
    assert.deepEqual(await itemsOf(`${filter({ run })}&limit=1`), ['pay-a']);
    assert.deepEqual(await itemsOf(`${filter({ run })}&limit=1&after=pay-a`), ['pay-b']);
    assert.deepEqual(await itemsOf(filter({ orderId: 'nobody' })), []);
    assert.equal((await get(`/v1/settlement-batches/${created.body.id}${filter({ run })}`, other.apiKey)).status, 404);

    // Each item's settlement carries the item's metadata: its reads, the tenant's settlements filter and its events.
    const [a, b, c] = ended.items.map((view) => view.merchantTxRef!);
    assert.deepEqual((await get(`/v1/transfers/${a}`)).body.metadata, { orderId: 'A-17', run });
    assert.equal('metadata' in (await get(`/v1/transfers/${c}`)).body, false);
    const settlements = await get(`/v1/transfers${filter({ run })}`);
    assert.deepEqual(
      (settlements.body as unknown as { transfers: Array<{ merchantTxRef: string }> }).transfers.map((s) => s.merchantTxRef).sort(),
      [a, b].sort(),
    );
    const told = await eventually(
      async () => {
        const events = await eventsOf(tenant.tenantId, a!);
        return events.some((event) => event.type === 'settlement.succeeded') && events;
      },
      { what: "the item's settlement paid" },
    );
    assert.deepEqual(
      told.map((event) => [event.type, event.data.metadata]),
      [
        ['settlement.created', { orderId: 'A-17', run }],
        ['settlement.succeeded', { orderId: 'A-17', run }],
      ],
    );
    const completed = await eventually(
      async () => (await eventsOf(tenant.tenantId, created.body.id)).find((event) => event.type === 'settlement_batch.completed'),
      { what: 'settlement_batch.completed' },
    );
    assert.deepEqual(completed.data.metadata, { run, payroll: 'november' });
    const untaggedEnded = await finalBatch(untagged.body.id);
    const untaggedCompleted = await eventually(
      async () => (await eventsOf(tenant.tenantId, untaggedEnded.id)).find((event) => event.type === 'settlement_batch.completed'),
      { what: "the untagged batch's settlement_batch.completed" },
    );
    assert.equal('metadata' in untaggedCompleted.data, false);
  });

  it("a held batch's approval events carry its metadata", async () => {
    const held = await createTenant(stack, 'Held Batch Metadata Tenant');
    const { operator, approver } = await approvalUsers(stack, held.tenantId, { batchItemsAtOrAbove: 2 });
    const account = await fundedAccount(stack, held.apiKey);
    const made = await post(
      { metadata: { run: 'held-1' }, items: [item(account, 'h-1'), item(account, 'h-2')] },
      randomUUID(),
      held.apiKey,
    );
    assert.deepEqual([made.status, made.body.status, made.body.metadata], [202, 'awaiting_approval', { run: 'held-1' }]);
    const rejected = await asUser(stack, approver, 'POST', `/auth/batch-approvals/${made.body.id}/reject`, { note: 'not this run' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.deepEqual(rejected.body.metadata, { run: 'held-1' });
    const events = await eventsOf(held.tenantId, made.body.id);
    assert.deepEqual(
      events.map((event) => [event.type, event.data.metadata]),
      [
        ['settlement_batch.awaiting_approval', { run: 'held-1' }],
        ['settlement_batch.rejected', { run: 'held-1' }],
      ],
    );
    // The dashboard's list of batches filters alike.
    const listed = await asUser(stack, operator, 'GET', `/auth/settlement-batches${filter({ run: 'held-1' })}`);
    assert.deepEqual(
      (listed.body.batches as Array<{ id: string }>).map((batch) => batch.id),
      [made.body.id],
    );
  });

  it('refuses metadata out of bounds on the batch or an item with a 400 naming where, and writes nothing', async () => {
    const account = await fundedAccount(stack, tenant.apiKey);
    const before = await stack.infra.db('settlement_batches').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>();
    const onBatch = await post({ metadata: { run: 17 }, items: [item(account, 'x-1')] });
    assert.deepEqual([onBatch.status, onBatch.body.error], [400, 'metadata.run must be a string']);
    const onItem = await post({ items: [item(account, 'x-1'), { ...item(account, 'x-2'), metadata: { 'bad key!': 'v' } }] });
    assert.equal(onItem.status, 400, onItem.text);
    assert.match(onItem.body.error!, /^metadata key "bad key!" must be 1 to 40 characters/);
    assert.equal(onItem.body.details?.[0]?.path, 'items[1].metadata.bad key!');
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v']));
    const overflow = await post({ items: [{ ...item(account, 'x-1'), metadata: tooMany }] });
    assert.deepEqual([overflow.status, overflow.body.error], [400, 'metadata must have at most 20 keys']);
    const together = Array.from({ length: 600 }, (_, index) => ({
      ...item(account, `big-${index}`),
      metadata: { note: 'n'.repeat(500), more: 'm'.repeat(500), most: 'o'.repeat(500), last: 'l'.repeat(500) },
    }));
    const tooLarge = await post({ items: together });
    assert.deepEqual(
      [tooLarge.status, tooLarge.body.error],
      [400, "the items' metadata must be at most 1048576 bytes together serialized as JSON"],
    );
    const badFilter = await get(`/v1/settlement-batches${filter({ 'bad key': 'x' })}`);
    assert.equal(badFilter.status, 400, badFilter.text);
    const after = await stack.infra.db('settlement_batches').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>();
    assert.deepEqual(after, before);
  });
});
