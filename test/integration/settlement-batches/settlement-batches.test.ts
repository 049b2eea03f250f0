import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { settlementBatchWorkflowId } from '../../../src/contracts/settlement-batch.contract';
import { formatKobo } from '../../../src/money';
import { settlementBatchItemKey } from '../../../src/settlement-batches/settlement-batch-items';
import { CREATE_BATCH_BODY_LIMIT } from '../../../src/settlement-batches/settlement-batches.schemas';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually, type HttpResponse } from '../../helpers/http';
import { magicAccountNumber, type MagicTransfer } from '../../helpers/sandbox-values';
import { scratchDatabase } from '../../helpers/scratch-database';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface Item {
  reference: string;
  accountRef: string;
  amount: string;
  bankCode?: string;
  accountNumber?: string;
  beneficiaryId?: string;
  narration?: string;
}

interface BatchItemView {
  reference: string;
  accountRef: string;
  amount: string;
  merchantTxRef: string | null;
  status: string;
  failureReason: string | null;
}

interface Batch {
  id: string;
  /** On a refusal. */
  error?: string;
  status: string;
  counts: Record<'queued' | 'pending' | 'processing' | 'success' | 'failed' | 'refunded', number>;
  items: BatchItemView[];
  pagination: { nextCursor: string | null; hasMore: boolean };
}

interface SandboxView {
  payouts: number;
  standingPayouts: number;
}

const PLAIN_DESTINATION = '0123456789';
const FINAL = ['completed', 'completed_with_failures', 'cancelled'];

/**
 * Bulk payouts end to end over HTTP, with the worker on the dev server and the sandbox as the provider:
 * every item an ordinary settlement (paid once, counted at the sandbox), invalid items failing alone, the
 * batch ending with its event, replays, cancels, tenant isolation, and books that still total zero.
 * A small in-flight cap (10) makes the batch initiate in waves, so the cap and the chunking are exercised. The batch
 * through the provider's bad days runs on a second system of the same settings, on a database of its own, while the
 * other tests run: its sandbox's injected faults reach no other test, and its workers take no other test's jobs. The
 * terminated batch and the batch whose item key is pre-claimed, each of a tenant of its own, start in `before` too.
 */
describe('settlement batches (dev server, real sandbox)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let tenant: TestTenant;
  let other: TestTenant;
  /** A second system on a database of its own, whose sandbox fails and throttles: its batch runs beside the other tests. */
  let faulty: Stack | undefined;
  let faultyDb: { url: string; drop(): Promise<void> } | undefined;
  let badDaysBatch: Promise<void>;
  let terminatedBatch: Promise<void>;
  let preclaimedBatch: Promise<void>;

  const settings = {
    SETTLEMENT_POLL_INTERVAL: '1s',
    SETTLEMENT_RETRY_SCHEDULE: '500ms',
    SETTLEMENT_NOT_FOUND_GRACE: '5s',
    SETTLEMENT_REFUND_WATCH: '1s',
    SETTLEMENT_BATCH_CHUNK: '7',
    SETTLEMENT_BATCH_IN_FLIGHT: '10',
    SETTLEMENT_BATCH_POLL_INTERVAL: '500ms',
    SANDBOX_PROCESSING_TIME: '6s',
    PROVIDER_TIMEOUT: '1s',
  };

  before(async () => {
    // The batch through the provider's bad days takes longest: it starts now, on a system of its own (its sandbox's
    // injected faults touch no other test), and its test waits for what it found.
    [stack, faulty] = await Promise.all([
      startStack(settings, { worker: true }),
      scratchDatabase('settlement_batches_faulty').then((database) => {
        faultyDb = database;
        return startStack({ ...settings, DATABASE_URL: database.url }, { worker: true });
      }),
    ]);
    badDaysBatch = payThroughBadDays(faulty, await createTenant(faulty));
    // Two batches of slow items, each of a tenant of its own, are paid meanwhile too.
    terminatedBatch = restartAfterTermination();
    preclaimedBatch = payUnderUnsendableKeys();
    // A failure is reported by its test; until then it must not count as unhandled.
    for (const started of [badDaysBatch, terminatedBatch, preclaimedBatch]) started.catch(() => undefined);
    tenant = await createTenant(stack);
    other = await createTenant(stack);
  });
  after(async () => {
    await Promise.all([stack?.close(), faulty?.close()]);
    await faultyDb?.drop();
  });

  // Each helper acts on `on`, the layer's system unless the faulty one is named.
  const post = (items: unknown, key: string | null = randomUUID(), apiKey = tenant.apiKey, query = '', on = stack) =>
    call<Batch>(on.apiUrl, 'POST', `/v1/settlement-batches${query}`, {
      apiKey,
      body: { items },
      headers: key === null ? {} : { 'Idempotency-Key': key },
    });
  const get = (id: string, apiKey = tenant.apiKey, query = '', on = stack) =>
    call<Batch>(on.apiUrl, 'GET', `/v1/settlement-batches/${id}${query}`, { apiKey });

  /** Every item of the batch, page by page (pages of 20, so the cursor is used). */
  async function allItems(id: string, apiKey = tenant.apiKey, on = stack): Promise<BatchItemView[]> {
    const items: BatchItemView[] = [];
    let after = '';
    for (;;) {
      const page = await get(id, apiKey, `?limit=20${after ? `&after=${encodeURIComponent(after)}` : ''}`, on);
      assert.equal(page.status, 200, page.text);
      items.push(...page.body.items);
      if (!page.body.pagination.hasMore) return items;
      after = page.body.pagination.nextCursor!;
    }
  }

  async function finalBatch(id: string, apiKey = tenant.apiKey, on = stack): Promise<Batch> {
    return eventually(
      async () => {
        const batch = (await get(id, apiKey, '', on)).body;
        if (!FINAL.includes(batch.status)) throw new Error(`last seen ${batch.status} ${JSON.stringify(batch.counts)}`);
        return batch;
      },
      { intervalMs: 500, what: `batch ${id} to end` },
    );
  }

  async function fundedAccounts(count: number, apiKey = tenant.apiKey, on = stack): Promise<ProvisionedAccount[]> {
    const accounts: ProvisionedAccount[] = [];
    for (let i = 0; i < count; i += 1) {
      const account = await provisionAccount(on, apiKey);
      await fundAccount(on, account.ID, 10_000_000n);
      accounts.push(account);
    }
    return accounts;
  }

  const sandboxView = async (ref: string, on = stack): Promise<SandboxView> =>
    (await call<SandboxView>(on.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;

  async function booksTotal(apiKey: string, on = stack): Promise<string> {
    const books = await call(on.apiUrl, 'GET', '/v1/ledger/balances', { apiKey });
    assert.equal(books.status, 200, books.text);
    return books.body.total as string;
  }

  const completedEvents = (batchId: string) =>
    stack.infra.db('tenant_events').where({ type: 'settlement_batch.completed', subject: batchId }).select('tenant_id', 'data');

  it('pays 48 valid items of 50 once each; the two invalid fail alone with their reasons; the batch ends completed_with_failures with its event', async () => {
    const accounts = await fundedAccounts(3);
    const items: Item[] = Array.from({ length: 50 }, (_, i) => ({
      reference: `pay-${i}`,
      accountRef: accounts[i % accounts.length]!.AccountRef,
      amount: `${100 + i}.50`,
      bankCode: '058',
      accountNumber: PLAIN_DESTINATION,
      narration: `payroll ${i}`,
    }));
    items[7] = { ...items[7]!, amount: '12.345' };
    items[31] = { ...items[31]!, accountRef: 'va_no_such_account' };
    const key = randomUUID();
    const created = await post(items, key);
    assert.equal(created.status, 202, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['counts', 'createdAt', 'id', 'status']);
    assert.ok(['validating', 'processing'].includes(created.body.status));

    const replay = await post(items, key);
    assert.deepEqual([replay.status, replay.body.id], [202, created.body.id]);
    const changed = await post([{ ...items[0]!, amount: '1.00' }, ...items.slice(1)], key);
    assert.deepEqual([changed.status, changed.body.error], [409, 'Idempotency-Key was already used with a different request']);

    const ended = await finalBatch(created.body.id);
    assert.equal(ended.status, 'completed_with_failures');
    assert.deepEqual(ended.counts, { queued: 0, pending: 0, processing: 0, success: 48, failed: 2, refunded: 0 });
    const all = await allItems(created.body.id);
    assert.deepEqual(
      all.map((item) => item.reference),
      items.map((item) => item.reference),
    );
    assert.deepEqual(
      all.filter((item) => item.status === 'failed'),
      [
        {
          reference: 'pay-7',
          accountRef: items[7]!.accountRef,
          amount: '12.345',
          merchantTxRef: null,
          status: 'failed',
          failureReason: 'invalid amount',
        },
        {
          reference: 'pay-31',
          accountRef: 'va_no_such_account',
          amount: '131.50',
          merchantTxRef: null,
          status: 'failed',
          failureReason: 'account not found',
        },
      ],
    );
    const paid = all.filter((item) => item.status === 'success');
    assert.equal(paid.length, 48);
    for (const item of paid) {
      const view = await sandboxView(item.merchantTxRef!);
      assert.deepEqual([item.reference, view.payouts, view.standingPayouts], [item.reference, 1, 1]);
      const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${item.merchantTxRef}`, { apiKey: tenant.apiKey });
      assert.deepEqual([transfer.body.status, transfer.body.amount], ['success', item.amount]);
    }
    // Each settlement was made under the item's own key: one per item, never two.
    const keyed = await stack.infra
      .db('idempotency_keys')
      .where({ tenant_id: tenant.tenantId, scope: 'settlement' })
      .where('key', 'like', `service settlement-batch:${created.body.id}:%`)
      .select('key', 'resource_ref');
    assert.deepEqual(
      keyed.map((row) => row.key).sort(),
      paid.map((item) => settlementBatchItemKey(created.body.id, item.reference)).sort(),
    );

    const events = await eventually(async () => {
      const rows = await completedEvents(created.body.id);
      return rows.length > 0 && rows;
    });
    assert.deepEqual(
      events.map((row) => [row.tenant_id, row.data]),
      [[tenant.tenantId, { batchId: created.body.id, status: 'completed_with_failures', items: 50, success: 48, failed: 2, refunded: 0 }]],
    );
    assert.equal(await booksTotal(tenant.apiKey), '0.00');
  });

  it('refuses a request it cannot take whole: no Idempotency-Key, a duplicate reference (named), no items, too many; nothing is written', async () => {
    const [account] = await fundedAccounts(1);
    const item = { reference: 'r-1', accountRef: account!.AccountRef, amount: '10.00', bankCode: '058', accountNumber: PLAIN_DESTINATION };
    const before = await stack.infra
      .db('settlement_batches')
      .where({ tenant_id: tenant.tenantId })
      .count<[{ count: string }]>('* as count');

    const noKey = await post([item], null);
    assert.deepEqual([noKey.status, noKey.body.error], [400, 'Idempotency-Key header is required']);
    const duplicate = await post([item, { ...item, reference: 'r-2' }, { ...item }]);
    assert.deepEqual([duplicate.status, duplicate.body.error], [400, 'duplicate reference "r-1" (items[0] and items[2])']);
    const empty = await post([]);
    assert.deepEqual([empty.status, empty.body.error], [400, 'items must hold at least 1 item']);
    const tooMany = await post(Array.from({ length: 5001 }, (_, i) => ({ ...item, reference: `r-${i}` })));
    assert.deepEqual([tooMany.status, tooMany.body.error], [400, 'items must hold at most 5000 items']);
    const noReference = await post([{ ...item, reference: undefined }]);
    assert.deepEqual([noReference.status, noReference.body.error], [400, 'items[0].reference is required']);

    const after = await stack.infra.db('settlement_batches').where({ tenant_id: tenant.tenantId }).count<[{ count: string }]>('* as count');
    assert.equal(after[0]!.count, before[0]!.count);
  });

  it('a dry run judges every item in order without writing anything', async () => {
    const [account] = await fundedAccounts(1);
    const base = { accountRef: account!.AccountRef, amount: '10.00', bankCode: '058', accountNumber: PLAIN_DESTINATION };
    const response = await call(stack.apiUrl, 'POST', '/v1/settlement-batches?dryRun=true', {
      apiKey: tenant.apiKey,
      body: {
        items: [
          { reference: 'ok', ...base },
          { reference: 'amount', ...base, amount: '-5' },
          { reference: 'ceiling', ...base, amount: formatKobo(stack.config.MAX_AMOUNT + 1n) },
          { reference: 'bank', ...base, bankCode: '999999' },
          { reference: 'number', ...base, accountNumber: '12' },
          { reference: 'account', ...base, accountRef: 'va_missing' },
          { reference: 'beneficiary', accountRef: account!.AccountRef, amount: '10.00', beneficiaryId: randomUUID() },
          { reference: 'both', ...base, beneficiaryId: randomUUID() },
        ],
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      valid: 1,
      invalid: 7,
      items: [
        { reference: 'ok', valid: true, reason: null },
        { reference: 'amount', valid: false, reason: 'invalid amount' },
        { reference: 'ceiling', valid: false, reason: 'invalid amount' },
        { reference: 'bank', valid: false, reason: 'invalid bank code' },
        { reference: 'number', valid: false, reason: 'accountNumber must be exactly 10 digits' },
        { reference: 'account', valid: false, reason: 'account not found' },
        { reference: 'beneficiary', valid: false, reason: 'beneficiary not found' },
        { reference: 'both', valid: false, reason: 'give either beneficiaryId or bankCode and accountNumber, not both' },
      ],
    });
    const written = await stack.infra.db('settlements').where({ account_id: account!.ID }).count<[{ count: string }]>('* as count');
    assert.equal(written[0]!.count, '0');
    // A dry run needs no key, but a key sent with it is still judged.
    const badKey = await call(stack.apiUrl, 'POST', '/v1/settlement-batches?dryRun=true', {
      apiKey: tenant.apiKey,
      headers: { 'Idempotency-Key': 'two words' },
      body: { items: [{ reference: 'ok', ...base }] },
    });
    assert.deepEqual([badKey.status, badKey.body.error], [400, 'Idempotency-Key must be 1 to 255 visible ASCII characters']);
  });

  it("a dry run judges a saved beneficiary's bank as the settle does: one the provider no longer lists is refused by both", async () => {
    const [account] = await fundedAccounts(1);
    const saved = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey: tenant.apiKey,
      body: { bankCode: '058', accountNumber: PLAIN_DESTINATION },
    });
    assert.ok([200, 201].includes(saved.status), saved.text);
    const gone = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey: tenant.apiKey,
      body: { bankCode: '058', accountNumber: '0123456788' },
    });
    assert.ok([200, 201].includes(gone.status), gone.text);
    // Its bank has left the provider's list since it was saved (no bank has this code).
    await stack.infra.db('beneficiaries').where({ id: gone.body.id }).update({ bank_code: '999999' });
    const items = [
      { reference: 'saved', accountRef: account!.AccountRef, amount: '10.00', beneficiaryId: saved.body.id },
      { reference: 'bank-gone', accountRef: account!.AccountRef, amount: '10.00', beneficiaryId: gone.body.id },
    ];

    const dryRun = await post(items, null, tenant.apiKey, '?dryRun=true');
    assert.equal(dryRun.status, 200, dryRun.text);
    assert.deepEqual(dryRun.body.items, [
      { reference: 'saved', valid: true, reason: null },
      { reference: 'bank-gone', valid: false, reason: 'invalid bank code' },
    ]);
    const single = await call(stack.apiUrl, 'POST', `/v1/accounts/${account!.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '10.00', beneficiaryId: gone.body.id },
    });
    assert.deepEqual([single.status, single.body.error], [400, 'invalid bank code']);
    const created = await post([items[1]]);
    assert.equal(created.status, 202, created.text);
    await finalBatch(created.body.id);
    assert.deepEqual(
      (await allItems(created.body.id)).map((item) => [item.reference, item.status, item.failureReason]),
      [['bank-gone', 'failed', 'invalid bank code']],
    );
    const written = await stack.infra.db('settlements').where({ account_id: account!.ID }).count<[{ count: string }]>('* as count');
    assert.equal(written[0]!.count, '0');
  });

  /**
   * A batch through the provider's bad days and injected throttling and failures (20% each, on `on`'s sandbox): every
   * valid item at most once, the debit reversed exactly when nothing stands.
   */
  async function payThroughBadDays(on: Stack, payer: TestTenant): Promise<void> {
    const accounts = await fundedAccounts(2, payer.apiKey, on);
    const outcomes: MagicTransfer[] = [
      'hiddenAfterTimeout',
      'errorAfterRecording',
      'failsTwiceThenSucceeds',
      'failsEverySubmission',
      'submitTimesOut',
      'pendingCode',
      'falseDuplicateOnce',
    ];
    const items: Item[] = Array.from({ length: 21 }, (_, i) => ({
      reference: `bad-${i}`,
      accountRef: accounts[i % 2]!.AccountRef,
      amount: '250.00',
      bankCode: '058',
      accountNumber: magicAccountNumber(outcomes[i % outcomes.length]!, `3${String(i).padStart(5, '0')}`),
    }));
    const faults = await call(on.sandboxUrl, 'POST', '/sandbox/faults', {
      body: { failureRate: 0.2, throttleRate: 0.2, retryAfterSeconds: 1, latencyMs: 0 },
    });
    assert.equal(faults.status, 200, faults.text);
    try {
      const created = await post(items, randomUUID(), payer.apiKey, '', on);
      assert.equal(created.status, 202, created.text);
      const ended = await finalBatch(created.body.id, payer.apiKey, on);
      assert.equal(ended.status, 'completed_with_failures');
      const all = await allItems(created.body.id, payer.apiKey, on);
      for (const item of all) {
        assert.ok(item.merchantTxRef, `${item.reference} was initiated`);
        const view = await sandboxView(item.merchantTxRef, on);
        assert.ok(view.payouts <= 1, `${item.reference}: ${view.payouts} payouts`);
        assert.equal(view.standingPayouts, item.status === 'success' ? 1 : 0, `${item.reference} (${item.status})`);
      }
      const failed = all.filter((item) => item.status === 'failed').map((item) => item.reference);
      assert.deepEqual(failed, ['bad-3', 'bad-10', 'bad-17'], 'only the destination that fails every submission fails');
      assert.equal(ended.counts.success, 18);
    } finally {
      await call(on.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
    assert.equal(await booksTotal(payer.apiKey, on), '0.00');
  }

  it('cancel stops the items not yet initiated ("cancelled"); those already settling go on; the batch ends cancelled', async () => {
    const cancelling = await createTenant(stack);
    const [account] = await fundedAccounts(1, cancelling.apiKey);
    // PROCESSING for SANDBOX_PROCESSING_TIME: the first ten fill the tenant's cap while the rest wait for room.
    const items: Item[] = Array.from({ length: 25 }, (_, i) => ({
      reference: `c-${i}`,
      accountRef: account!.AccountRef,
      amount: '100.00',
      bankCode: '058',
      accountNumber: magicAccountNumber('processingThenSucceeds', `4${String(i).padStart(5, '0')}`),
    }));
    const created = await post(items, randomUUID(), cancelling.apiKey);
    assert.equal(created.status, 202, created.text);
    await eventually(async () => (await get(created.body.id, cancelling.apiKey)).body.counts.queued === 15, {
      what: 'the first ten initiated',
    });
    const cancelled = await call<Batch>(stack.apiUrl, 'POST', `/v1/settlement-batches/${created.body.id}/cancel`, {
      apiKey: cancelling.apiKey,
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.counts.queued, 0);
    assert.equal(cancelled.body.counts.failed, 15);
    const again = await call<Batch>(stack.apiUrl, 'POST', `/v1/settlement-batches/${created.body.id}/cancel`, {
      apiKey: cancelling.apiKey,
    });
    assert.deepEqual([again.status, again.body.status], [200, 'cancelled']);

    const ended = await eventually(
      async () => {
        const batch = (await get(created.body.id, cancelling.apiKey)).body;
        return batch.counts.success === 10 && (await completedEvents(created.body.id)).length === 1 && batch;
      },
      { intervalMs: 500, what: 'the ten initiated to succeed and the batch to end' },
    );
    assert.equal(ended.status, 'cancelled');
    const all = await allItems(created.body.id, cancelling.apiKey);
    assert.deepEqual(
      all.map((item) => [item.reference, item.status, item.failureReason, item.merchantTxRef !== null]),
      items.map((item, i) => (i < 10 ? [item.reference, 'success', null, true] : [item.reference, 'failed', 'cancelled', false])),
    );
    assert.deepEqual((await completedEvents(created.body.id))[0].data, {
      batchId: created.body.id,
      status: 'cancelled',
      items: 25,
      success: 10,
      failed: 15,
      refunded: 0,
    });
    const late = await call(stack.apiUrl, 'POST', `/v1/settlement-batches/${created.body.id}/cancel`, { apiKey: cancelling.apiKey });
    assert.deepEqual([late.status, late.body.status], [200, 'cancelled']);
    assert.equal(await booksTotal(cancelling.apiKey), '0.00');
    // Made and cancelled with an API key: audited as the key, the cancel once however often it is asked.
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: cancelling.tenantId, target_type: 'settlement_batch', target_id: created.body.id })
      .orderBy('id')
      .select('action', 'actor', 'user_id', 'detail');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor, row.user_id]),
      [
        ['settlement_batch.created', 'API key', null],
        ['settlement_batch.cancelled', 'API key', null],
      ],
    );
    assert.equal(audit[0].detail.items, 25);
  });

  it("keeps each tenant's batches to itself: another tenant's batch is not found, and lists show only one's own", async () => {
    const [account] = await fundedAccounts(1);
    const created = await post([
      { reference: 'mine', accountRef: account!.AccountRef, amount: '5.00', bankCode: '058', accountNumber: PLAIN_DESTINATION },
    ]);
    assert.equal(created.status, 202, created.text);
    const read = await get(created.body.id, other.apiKey);
    assert.deepEqual([read.status, read.body.error], [404, 'settlement batch not found']);
    const cancel = await call(stack.apiUrl, 'POST', `/v1/settlement-batches/${created.body.id}/cancel`, { apiKey: other.apiKey });
    assert.deepEqual([cancel.status, cancel.body.error], [404, 'settlement batch not found']);
    const malformed = await get('not-a-uuid');
    assert.deepEqual([malformed.status, malformed.body.error], [404, 'settlement batch not found']);
    // The other tenant paying from this tenant's account: the item fails alone, as a settle would.
    const foreign = await post(
      [{ reference: 'theirs', accountRef: account!.AccountRef, amount: '5.00', bankCode: '058', accountNumber: PLAIN_DESTINATION }],
      randomUUID(),
      other.apiKey,
    );
    const foreignEnded = await finalBatch(foreign.body.id, other.apiKey);
    assert.deepEqual([foreignEnded.status, foreignEnded.items[0]!.failureReason], ['completed_with_failures', 'account not found']);
    const mine: HttpResponse = await call(stack.apiUrl, 'GET', '/v1/settlement-batches?limit=200', { apiKey: tenant.apiKey });
    const theirs: HttpResponse = await call(stack.apiUrl, 'GET', '/v1/settlement-batches?limit=200', { apiKey: other.apiKey });
    const ids = (response: HttpResponse) => (response.body.batches as Array<{ id: string }>).map((batch) => batch.id);
    assert.ok(ids(mine).includes(created.body.id));
    assert.ok(!ids(mine).includes(foreign.body.id));
    assert.deepEqual(ids(theirs), [foreign.body.id]);
    await finalBatch(created.body.id);
  });

  /** Items that stay PROCESSING at the sandbox for SANDBOX_PROCESSING_TIME, then succeed. */
  const slowItems = (prefix: string, count: number, accountRef: string, digit: string): Item[] =>
    Array.from({ length: count }, (_, i) => ({
      reference: `${prefix}-${i}`,
      accountRef,
      amount: '100.00',
      bankCode: '058',
      accountNumber: magicAccountNumber('processingThenSucceeds', `${digit}${String(i).padStart(5, '0')}`),
    }));

  /** The tenant's settlements made by batch items and still pending or processing. */
  async function batchSettlementsInFlight(tenantId: string): Promise<number> {
    const [row] = await stack.infra
      .db('settlements')
      .where({ tenant_id: tenantId })
      .whereIn('status', ['pending', 'processing'])
      .whereIn('merchant_tx_ref', stack.infra.db('settlement_batch_items').whereNotNull('merchant_tx_ref').select('merchant_tx_ref'))
      .count<[{ count: string }]>('* as count');
    return Number(row!.count);
  }

  it("holds the tenant's cap of settlements in flight across concurrent batches: never more than 10 at once", async () => {
    const capped = await createTenant(stack);
    const [account] = await fundedAccounts(1, capped.apiKey);
    const created = await Promise.all(
      ['5', '6', '7'].map((digit) => post(slowItems(`cap${digit}`, 10, account!.AccountRef, digit), randomUUID(), capped.apiKey)),
    );
    for (const batch of created) assert.equal(batch.status, 202, batch.text);
    let most = 0;
    await eventually(
      async () => {
        most = Math.max(most, await batchSettlementsInFlight(capped.tenantId));
        const ended = await Promise.all(
          created.map(async (batch) => FINAL.includes((await get(batch.body.id, capped.apiKey)).body.status)),
        );
        return ended.every(Boolean);
      },
      { intervalMs: 100, what: 'the three batches to end' },
    );
    assert.equal(most, 10, 'the cap was reached and never passed');
    for (const batch of created) assert.equal((await get(batch.body.id, capped.apiKey)).body.counts.success, 10);
  });

  /** A batch whose workflow is terminated mid-way, started again by the convergence check's restart: it ends, each item paid once. */
  async function restartAfterTermination(): Promise<void> {
    const stopped = await createTenant(stack);
    const [account] = await fundedAccounts(1, stopped.apiKey);
    const items = slowItems('t', 25, account!.AccountRef, '8');
    const created = await post(items, randomUUID(), stopped.apiKey);
    assert.equal(created.status, 202, created.text);
    await eventually(async () => (await get(created.body.id, stopped.apiKey)).body.counts.queued === 15, {
      what: 'the first ten initiated',
    });
    await stack.infra.temporal.workflow.getHandle(settlementBatchWorkflowId(created.body.id)).terminate('operator terminated it mid-way');
    await eventually(async () => (await stack.services.settlementBatchRestarts.restartStalled()).restarted === 1, {
      intervalMs: 500,
      what: 'the restart to start the batch again',
    });
    const ended = await finalBatch(created.body.id, stopped.apiKey);
    assert.equal(ended.status, 'completed');
    assert.equal(ended.counts.success, 25);
    for (const item of await allItems(created.body.id, stopped.apiKey)) {
      const view = await sandboxView(item.merchantTxRef!);
      assert.deepEqual([item.reference, view.payouts, view.standingPayouts], [item.reference, 1, 1]);
    }
    assert.equal((await completedEvents(created.body.id)).length, 1);
    // The batch ended: a later restart finds nothing open to start.
    assert.equal((await stack.services.settlementBatchRestarts.restartStalled()).restarted, 0);
  }

  /** A batch whose item's former key a settle pre-claims: the item is paid under a key no client can send. */
  async function payUnderUnsendableKeys(): Promise<void> {
    const claiming = await createTenant(stack);
    const [account] = await fundedAccounts(1, claiming.apiKey);
    const items = slowItems('k', 12, account!.AccountRef, '9');
    const created = await post(items, randomUUID(), claiming.apiKey);
    assert.equal(created.status, 202, created.text);
    // The cap holds the last two items queued while the first ten settle.
    await eventually(async () => (await get(created.body.id, claiming.apiKey)).body.counts.queued === 2, { what: 'ten initiated' });
    const claimed = await call(stack.apiUrl, 'POST', `/v1/accounts/${account!.AccountRef}/settle`, {
      apiKey: claiming.apiKey,
      body: { amount: '1.00', bankCode: '058', accountNumber: PLAIN_DESTINATION },
      headers: { 'Idempotency-Key': `settlement-batch:${created.body.id}:k-11` },
    });
    assert.equal(claimed.status, 202, claimed.text);
    const derived = await call(stack.apiUrl, 'POST', `/v1/accounts/${account!.AccountRef}/settle`, {
      apiKey: claiming.apiKey,
      body: { amount: '1.00', bankCode: '058', accountNumber: PLAIN_DESTINATION },
      headers: { 'Idempotency-Key': settlementBatchItemKey(created.body.id, 'k-10') },
    });
    assert.deepEqual([derived.status, derived.body.error], [400, 'Idempotency-Key must be 1 to 255 visible ASCII characters']);
    const ended = await finalBatch(created.body.id, claiming.apiKey);
    assert.deepEqual([ended.status, ended.counts.success], ['completed', 12]);
    const last = (await allItems(created.body.id, claiming.apiKey)).find((item) => item.reference === 'k-11')!;
    assert.notEqual(last.merchantTxRef, claimed.body.merchantTxRef);
    const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${last.merchantTxRef}`, { apiKey: claiming.apiKey });
    assert.deepEqual([transfer.body.status, transfer.body.amount], ['success', '100.00']);
  }

  it('reads a 5,000-item body over 1 MB; a body over the batch limit, or over 1 MB on another route, is a clean 413', async () => {
    const [account] = await fundedAccounts(1);
    const narration = 'n'.repeat(100);
    const items = Array.from({ length: 5_000 }, (_, i) => ({
      reference: `big-${i}-${'r'.repeat(80)}`,
      accountRef: account!.AccountRef,
      amount: '1.00',
      bankCode: '058',
      accountNumber: PLAIN_DESTINATION,
      narration,
    }));
    assert.ok(JSON.stringify({ items }).length > 1024 * 1024);
    const judged = await post(items, null, tenant.apiKey, '?dryRun=true');
    assert.equal(judged.status, 200, judged.text.slice(0, 500));
    assert.deepEqual([(judged.body as unknown as { valid: number }).valid, judged.text.includes('"invalid":0')], [5_000, true]);

    const tooBig = await post([{ reference: 'x'.repeat(CREATE_BATCH_BODY_LIMIT) }]);
    assert.deepEqual(
      [tooBig.status, tooBig.body.error],
      [413, `request body too large (limit ${CREATE_BATCH_BODY_LIMIT / (1024 * 1024)} MB)`],
    );
    const elsewhere = await call(stack.apiUrl, 'POST', `/v1/accounts/${account!.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '1.00', bankCode: '058', accountNumber: PLAIN_DESTINATION, narration: 'x'.repeat(1024 * 1024) },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    assert.deepEqual([elsewhere.status, elsewhere.body.error], [413, 'request body too large (limit 1 MB)']);
  });

  it("a batch whose workflow was terminated mid-way is started again by the convergence check's restart and ends, each item paid once", async () => {
    // Started in `before`, and last, so the other tests run while its slow items are paid.
    await terminatedBatch;
  });

  it("pays an item under a key no client can send: a settle pre-claiming the item's former key changes nothing", async () => {
    // Started in `before`, and last, so the other tests run while its slow items are paid.
    await preclaimedBatch;
  });

  it("pays a batch through the provider's bad days and injected throttling and failures: every valid item at most once, the debit reversed exactly when nothing stands", async () => {
    // Started in `before`, on the faulty system, and last, so the other tests run while it is paid.
    await badDaysBatch;
  });
});
