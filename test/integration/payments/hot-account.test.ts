import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { eventsFor, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const CONCURRENT = 120;

/** The posting-group sizes the API recorded: how many statements, and how many payments they carried. */
async function postingGroups(stack: Stack): Promise<{ statements: number; payments: number }> {
  const metric = (await stack.infra.metrics.registry.getSingleMetric('nuban_payment_posting_group_size')!.get()) as {
    values: Array<{ metricName?: string; value: number }>;
  };
  const value = (suffix: string) =>
    metric.values.find((sample) => sample.metricName === `nuban_payment_posting_group_size_${suffix}`)?.value ?? 0;
  return { statements: value('count'), payments: value('sum') };
}

describe('concurrent payment webhooks: one hot account, and many accounts sharing statements', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;

  before(async () => {
    stack = await startStack({ PAYMENT_POSTING_GROUP_MAX: '16', PAYMENT_POSTING_STATEMENTS: '2' });
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: 'http://127.0.0.1:9/hook' });
  });
  after(() => stack.close());

  it('posts each once, in one gapless sequence with exact running columns and totals, grouped into fewer statements, each visible when its 200 arrives', async () => {
    const before = await postingGroups(stack);
    // Distinct amounts, so a misplaced running balance cannot add up by accident; every fifth webhook is
    // sent twice at the same moment (a provider redelivery racing the original).
    const payloads = Array.from({ length: CONCURRENT }, (_, index) =>
      paymentEvent({ accountRef: account.AccountRef, amount: 1000 + index, fee: 10 }),
    );
    const sends = payloads.flatMap((payload, index) => (index % 5 === 0 ? [payload, payload] : [payload]));
    const db = stack.infra.db;
    const visibleAtAnswer = await Promise.all(
      sends.map(async (payload) => {
        const response = await sendProviderEvent(stack, payload);
        assert.equal(response.status, 200);
        // The 200 means committed: the credit is there the moment the answer arrives.
        const transactionId = (payload.data as { transaction: { transactionId: string } }).transaction.transactionId;
        return (await db('ledger_entries').where({ provider_txn_ref: transactionId }).first('id')) !== undefined;
      }),
    );
    assert.ok(visibleAtAnswer.every(Boolean), 'every answered payment is committed when its 200 arrives');

    const entries: Array<{
      seq: string;
      amount: string;
      balance_after: string;
      credits_to_date: string;
      debits_to_date: string;
      status: string;
    }> = await db('ledger_entries').where({ account_id: account.ID }).orderBy('seq');
    assert.equal(entries.length, CONCURRENT, 'each payment credited exactly once, duplicates included');
    let credits = 0n;
    entries.forEach((entry, index) => {
      credits += BigInt(entry.amount);
      assert.equal(Number(entry.seq), index + 1, 'seq has no gap and no repeat');
      assert.equal(BigInt(entry.credits_to_date), credits);
      assert.equal(BigInt(entry.debits_to_date), 0n);
      assert.equal(BigInt(entry.balance_after), credits);
      assert.equal(entry.status, 'provisional');
    });
    const expected = payloads.reduce((sum, _payload, index) => sum + BigInt((1000 + index) * 100 - 1000), 0n);
    assert.equal(credits, expected);
    const row = await db('virtual_accounts').where({ id: account.ID }).first();
    assert.deepEqual(
      [BigInt(row.last_seq), BigInt(row.total_credits), BigInt(row.ledger_balance), BigInt(row.pending_credits), BigInt(row.total_debits)],
      [BigInt(CONCURRENT), expected, expected, expected, 0n],
    );
    assert.deepEqual(await createLedgerVerificationRepo(db).problems(), []);

    // Every credit has its one delivery (and its start) and its place in the confirmation queue; each duplicate request id is one event.
    const deliveryIds = (await db('webhook_deliveries').where({ account_id: account.ID }).pluck('id')) as string[];
    assert.equal(deliveryIds.length, CONCURRENT);
    assert.equal(
      (
        await db('workflow_outbox').whereIn(
          'workflow_id',
          deliveryIds.map((id) => `webhook-delivery:${id}`),
        )
      ).length,
      CONCURRENT,
    );
    const entryIds = (await db('ledger_entries').where({ account_id: account.ID }).select('id')).map((entry: { id: string }) => entry.id);
    const queued = await db('confirmation_claims').whereIn('entry_id', entryIds).select('tenant_id', 'account_ref');
    assert.equal(queued.length, CONCURRENT);
    assert.ok(
      queued.every(
        (claim: { tenant_id: string; account_ref: string }) =>
          claim.tenant_id === tenant.tenantId && claim.account_ref === account.AccountRef,
      ),
    );
    for (const payload of payloads.filter((_payload, index) => index % 5 === 0)) {
      assert.deepEqual(
        (await eventsFor(stack, payload.requestId as string)).map((event) => event.category),
        ['payment'],
      );
    }

    const page = await statement(stack, tenant.apiKey, account.AccountRef, '?limit=200');
    assert.equal(page.body.lines.length, CONCURRENT);
    assert.equal(page.body.closingBalance, page.body.lines.at(-1).runningBalance);

    const after = await postingGroups(stack);
    assert.equal(after.payments - before.payments, sends.length, 'every webhook went through a posting group');
    assert.ok(
      after.statements - before.statements < sends.length,
      `concurrent webhooks shared statements (${after.statements - before.statements} statements for ${sends.length} webhooks)`,
    );
  });

  it('keeps one bad payment from deciding the others of its group: a transaction already credited under another request id is a processing error, the rest post', async () => {
    const transactionId = `API-VACT_TRA-${randomUUID()}`;
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, transactionId }))).status, 200);
    const seqBefore = Number((await stack.infra.db('virtual_accounts').where({ id: account.ID }).first('last_seq')).last_seq);
    const replayUnderNewId = paymentEvent({ accountRef: account.AccountRef, transactionId });
    const others = Array.from({ length: 20 }, () => paymentEvent({ accountRef: account.AccountRef, amount: 2000 }));
    const responses = await Promise.all(
      [...others.slice(0, 10), replayUnderNewId, ...others.slice(10)].map((payload) => sendProviderEvent(stack, payload)),
    );
    assert.ok(responses.every((response) => response.status === 200));
    assert.deepEqual(
      (await eventsFor(stack, replayUnderNewId.requestId as string)).map((event) => [event.category, event.error]),
      [['processing_error', 'transaction already credited under another request id']],
    );
    const seqAfter = Number((await stack.infra.db('virtual_accounts').where({ id: account.ID }).first('last_seq')).last_seq);
    assert.equal(seqAfter - seqBefore, others.length);
    assert.deepEqual(await createLedgerVerificationRepo(stack.infra.db).problems(), []);
  });

  it('posts webhooks to many accounts of two tenants in shared statements: each account gapless and exact, each tenant its own, unknown accounts misdirected', async () => {
    const other = await createTenant(stack);
    const accounts = [
      ...(await Promise.all(Array.from({ length: 6 }, () => provisionAccount(stack, tenant.apiKey)))),
      ...(await Promise.all(
        Array.from({ length: 6 }, () => provisionAccount(stack, other.apiKey, { callbackUrl: 'http://127.0.0.1:9/hook' })),
      )),
    ];
    const before = await postingGroups(stack);
    const payloads = Array.from({ length: 240 }, (_, index) =>
      paymentEvent({ accountRef: accounts[index % accounts.length]!.AccountRef, amount: 500 + index, fee: 5 }),
    );
    const unknown = Array.from({ length: 6 }, () => paymentEvent({ accountRef: `VA-NOSUCH${randomUUID().slice(0, 8)}` }));
    // Every seventh webhook twice at once (a redelivery racing the original), the unknown ones among the rest.
    const sends = [...payloads.flatMap((payload, index) => (index % 7 === 0 ? [payload, payload] : [payload])), ...unknown].sort(
      () => Math.random() - 0.5,
    );
    const responses = await Promise.all(sends.map((payload) => sendProviderEvent(stack, payload)));
    assert.ok(responses.every((response) => response.status === 200));

    const db = stack.infra.db;
    for (const [index, account] of accounts.entries()) {
      const mine = payloads.filter((_payload, position) => position % accounts.length === index);
      const entries: Array<{ seq: string; amount: string; balance_after: string; tenant_id: string }> = await db('ledger_entries')
        .where({ account_id: account.ID })
        .orderBy('seq');
      assert.equal(entries.length, mine.length, `account ${index}: each payment credited once`);
      let balance = 0n;
      entries.forEach((entry, position) => {
        balance += BigInt(entry.amount);
        assert.equal(Number(entry.seq), position + 1, `account ${index}: seq has no gap and no repeat`);
        assert.equal(BigInt(entry.balance_after), balance);
        assert.equal(entry.tenant_id, index < 6 ? tenant.tenantId : other.tenantId, "each credit carries its own account's tenant");
      });
      const expected = mine.reduce(
        (sum, payload) =>
          sum +
          BigInt(Math.round(((payload.data as { transaction: { transactionAmount: number } }).transaction.transactionAmount - 5) * 100)),
        0n,
      );
      assert.equal(balance, expected, `account ${index}: the credits add up to its payments`);
      const row = await db('virtual_accounts').where({ id: account.ID }).first('last_seq', 'ledger_balance', 'pending_credits');
      assert.deepEqual([Number(row.last_seq), BigInt(row.ledger_balance), BigInt(row.pending_credits)], [mine.length, expected, expected]);
    }
    const otherIds = accounts.slice(6).map((account) => account.ID);
    assert.equal(
      Number((await db('webhook_deliveries').whereIn('account_id', otherIds).count<{ count: string }[]>('* as count').first())?.count),
      payloads.length / 2,
      'only the accounts with a callback get deliveries',
    );
    assert.deepEqual(
      await db('workflow_outbox')
        .whereIn(
          'workflow_id',
          (await db('webhook_deliveries').whereIn('account_id', otherIds).pluck('id')).map((id: string) => `webhook-delivery:${id}`),
        )
        .distinct('tenant_id')
        .pluck('tenant_id'),
      [other.tenantId],
    );
    for (const payload of unknown) {
      assert.deepEqual(
        (await eventsFor(stack, payload.requestId as string)).map((event) => event.category),
        ['misdirected'],
      );
    }
    assert.deepEqual(await createLedgerVerificationRepo(db).problems(), []);
    const after = await postingGroups(stack);
    assert.ok(
      after.statements - before.statements < sends.length,
      `concurrent webhooks shared statements (${after.statements - before.statements} statements for ${sends.length} webhooks)`,
    );
  });
});
