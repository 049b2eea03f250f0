import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as eventsByMonthMigration from '../../../migrations/20261212000200_events_and_deliveries_by_month';
import { uuidv7 } from '../../../src/ids';
import { createHistoryMonthsService } from '../../../src/history/history-months.service';
import { HISTORY_TABLES } from '../../../src/history/history-months.repo';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { createDeliveriesRepo } from '../../../src/webhooks/deliveries.repo';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { rolledBack } from '../../helpers/rolled-back';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

// The events, their deliveries and the provider's payloads are partitioned by month like the ledger's entries: a
// provider's retry is a duplicate whatever the month its first copy was recorded in (the request id's key is a table of
// its own), the months ahead are made for them too, and ledger:verify names a row whose delivery or event is missing.
describe('events, deliveries and provider payloads by month', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  let lastMonth: Date;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey);
    lastMonth = (
      await db().raw(`SELECT date_trunc('month', now() AT TIME ZONE 'Africa/Lagos') AT TIME ZONE 'Africa/Lagos' - interval '5 days' AS at`)
    ).rows[0].at as Date;
    // Last month's partition, as the worker made it then (a copy recorded then sits in it).
    await db().raw(`SELECT history_month_partition('inbound_events', CAST(? AS timestamptz)::date)`, [lastMonth]);
  });
  after(() => stack.close());

  const db = () => stack.infra.db;

  /** An inbound event recorded last month, with the key it claimed then (request id or body digest), as a migration carries it over. */
  async function recordedLastMonth(event: Record<string, unknown>, key: { requestId: string } | { rawSha256: string }): Promise<string> {
    const id = uuidv7();
    await db().transaction(async (trx) => {
      await trx('inbound_events').insert({ id, ...event, received_at: lastMonth, created_at: lastMonth });
      if ('requestId' in key)
        await trx('inbound_event_request_keys').insert({
          request_id: key.requestId,
          tenant_id: event.tenant_id ?? null,
          event_id: id,
          created_at: lastMonth,
        });
      else await trx('inbound_event_digest_keys').insert({ raw_sha256: key.rawSha256, event_id: id, created_at: lastMonth });
    });
    return id;
  }

  const eventsOf = (requestId: string) =>
    db()('inbound_events').where({ request_id: requestId }).orderBy('created_at').select('id', 'category');

  it('answers a payment webhook whose first copy was recorded last month as a duplicate: nothing recorded, nothing credited', async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 7025, fee: 25 });
    const requestId = payload.requestId as string;
    const transactionId = (payload.data as { transaction: { transactionId: string } }).transaction.transactionId;
    const first = await recordedLastMonth(
      {
        request_id: requestId,
        event_type: 'payment_success',
        category: 'payment',
        signature_valid: true,
        tenant_id: tenant.tenantId,
        account_id: account.ID,
        transaction_id: transactionId,
      },
      { requestId },
    );
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    assert.deepEqual(await eventsOf(requestId), [{ id: first, category: 'payment' }]);
    assert.equal((await db()('ledger_entries').where({ provider_txn_ref: transactionId })).length, 0);
    // The same copy again this month is a duplicate as before.
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    assert.equal((await eventsOf(requestId)).length, 1);
  });

  it('answers any other verified event whose first copy was recorded last month as a duplicate', async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, eventType: 'terminal_transaction' });
    const requestId = payload.requestId as string;
    const first = await recordedLastMonth(
      { request_id: requestId, event_type: 'terminal_transaction', category: 'non_payment_event', signature_valid: true },
      { requestId },
    );
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    assert.deepEqual(await eventsOf(requestId), [{ id: first, category: 'non_payment_event' }]);
  });

  it('counts a repeat of an unverified body on the copy recorded last month', async () => {
    const junk = JSON.stringify(paymentEvent({ accountRef: 'va_nobody_000000000000', requestId: `junk-${randomUUID()}` }));
    const rawSha256 = createHash('sha256').update(junk).digest('hex');
    const first = await recordedLastMonth(
      { category: 'sig_invalid', signature_valid: false, raw_sha256: rawSha256, raw_body: junk.slice(0, 256) },
      { rawSha256 },
    );
    assert.equal((await sendProviderEvent(stack, JSON.parse(junk), { forged: true, rawBody: junk })).status, 200);
    assert.deepEqual(await db()('inbound_events').where({ raw_sha256: rawSha256 }).select('id', 'occurrences'), [
      { id: first, occurrences: 2 },
    ]);
  });

  it('carries the rows the API made over from single tables into their months, with their keys: ledger:verify clean', async () => {
    const withCallback = await provisionAccount(stack, tenant.apiKey, { callbackUrl: 'https://example.com/hooks' });
    const payload = paymentEvent({ accountRef: withCallback.AccountRef });
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    const delivery = await db()('webhook_deliveries').where({ account_id: withCallback.ID }).first('id');
    const attemptedAt = new Date();
    const outcome = { attemptNo: 1, attemptedAt, statusCode: 500, error: 'HTTP 500', durationMs: 12, status: 'retrying' as const };
    assert.ok(await createDeliveriesRepo(db()).recordAttempt(delivery.id, { ...outcome, nextRetryAt: new Date() }));
    assert.equal(await createDeliveriesRepo(db()).recordAttempt(delivery.id, { ...outcome, nextRetryAt: new Date() }), undefined);
    const tables = ['inbound_events', 'inbound_event_request_keys', 'tenant_events', 'webhook_deliveries', 'webhook_attempts'];
    /** Each table's rows as one digest, read one table at a time (the transaction is one connection). */
    const rowsOf = async (trx: Stack['infra']['db']) => {
      const digests: Record<string, string> = {};
      for (const table of tables)
        digests[table] = (await trx.raw(`SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS rows FROM ${table} t`)).rows[0].rows;
      return digests;
    };
    await rolledBack(stack, async (trx) => {
      const before = await rowsOf(trx);
      // Back to single tables as the main branch before them had them, and into their months again.
      await eventsByMonthMigration.down(trx);
      assert.equal((await trx.raw(`SELECT relkind FROM pg_class WHERE relname = 'inbound_events'`)).rows[0].relkind, 'r');
      await eventsByMonthMigration.up(trx);
      assert.equal((await trx.raw(`SELECT relkind FROM pg_class WHERE relname = 'inbound_events'`)).rows[0].relkind, 'p');
      assert.deepEqual(await rowsOf(trx), before);
      assert.deepEqual(await createLedgerVerificationRepo(trx).problems(), []);
    });
  });

  it('makes the coming months of every history table, the events, deliveries and payloads among them', async () => {
    await rolledBack(stack, async (trx) => {
      const made = await createHistoryMonthsService({ db: trx, refundWatchMs: 0 }).ensureMonths(5);
      for (const table of ['tenant_events', 'webhook_deliveries', 'webhook_attempts', 'inbound_events']) {
        assert.ok(HISTORY_TABLES.includes(table), table);
        assert.ok(
          made.some((partition) => partition.table === table),
          `${table}: ${JSON.stringify(made)}`,
        );
      }
    });
  });

  it('ledger:verify names an attempt, a delivery or a key whose delivery or event does not exist', async () => {
    await rolledBack(stack, async (trx) => {
      const before = (await createLedgerVerificationRepo(trx).problems()).filter((problem) => problem.check === 'orphan_references');
      assert.deepEqual(before, []);
      const missing = { delivery: randomUUID(), inbound: randomUUID(), tenantEvent: randomUUID(), replayed: randomUUID() };
      const deliveryId = uuidv7();
      await trx('webhook_deliveries').insert({
        id: deliveryId,
        event_id: deliveryId,
        tenant_id: tenant.tenantId,
        account_id: account.ID,
        inbound_event_id: missing.inbound,
        tenant_event_id: missing.tenantEvent,
        replay_of: missing.replayed,
        callback_url: 'https://example.com/hook',
        payload: '{}',
        event_received_at: new Date(),
      });
      await trx('webhook_attempts').insert({
        delivery_id: missing.delivery,
        tenant_id: tenant.tenantId,
        created_at: new Date(),
        attempt_no: 1,
        attempted_at: new Date(),
        duration_ms: 5,
      });
      const requestId = `orphan-${randomUUID()}`;
      await trx('inbound_event_request_keys').insert({
        request_id: requestId,
        tenant_id: tenant.tenantId,
        event_id: missing.inbound,
        created_at: new Date(),
      });
      const details = (await createLedgerVerificationRepo(trx).problems())
        .filter((problem) => problem.check === 'orphan_references')
        .map((problem) => problem.detail)
        .sort();
      assert.deepEqual(
        details,
        [
          `inbound_event_request_keys row ${requestId} names inbound event ${missing.inbound}, which does not exist`,
          `webhook_attempts row ${missing.delivery}/1 names delivery ${missing.delivery}, which does not exist`,
          `webhook_deliveries row ${deliveryId} names delivery ${missing.replayed}, which does not exist`,
          `webhook_deliveries row ${deliveryId} names inbound event ${missing.inbound}, which does not exist`,
          `webhook_deliveries row ${deliveryId} names tenant event ${missing.tenantEvent}, which does not exist`,
        ].sort(),
      );
    });
  });

  it('ledger:verify names a verified inbound event that does not hold its request id’s key', async () => {
    await rolledBack(stack, async (trx) => {
      const id = uuidv7();
      const requestId = `keyless-${randomUUID()}`;
      await trx('inbound_events').insert({ id, request_id: requestId, category: 'non_payment_event', signature_valid: true });
      const keys = (await createLedgerVerificationRepo(trx).problems()).filter((problem) => problem.check === 'ledger_keys');
      assert.deepEqual(
        keys.map((problem) => problem.detail),
        [`inbound event ${id} of request ${requestId} does not hold its key (held by no event)`],
      );
    });
  });
});
