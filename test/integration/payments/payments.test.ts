import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { eventsFor, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { loadTestVectors } from '../../helpers/test-vectors';
import { keptWaitingPastItsWindow } from '../../helpers/confirmation';

interface Vector {
  name: string;
  secret: string;
  timestampHeader: string;
  payload: { requestId: string; data: { transaction: { aliasAccountReference: string } } };
  signature: string;
}

const vectors = loadTestVectors<{ cases: Vector[] }>('inbound-signature').cases;

/** The signing secret being rotated out. */
const PREVIOUS_SECRET = 'the-signing-secret-being-rotated-out';

describe('inbound provider webhook', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  before(async () => {
    stack = await startStack({
      PROVIDER_WEBHOOKS_SIGNING_SECRET: vectors[0]!.secret,
      PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET: PREVIOUS_SECRET,
    });
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: 'http://127.0.0.1:9/hook' });
  });
  after(() => stack.close());

  it('accepts every shared signature vector (base64 and hex), with provider-* or nomba-* headers', async () => {
    for (const [index, vector] of vectors.entries()) {
      // aliasAccountReference is not signed, so the vectors can be pointed at a real account.
      const payload = structuredClone(vector.payload);
      payload.data.transaction.aliasAccountReference = account.AccountRef;
      const prefix = index % 2 === 0 ? 'provider' : 'nomba';
      const response = await call(stack.apiUrl, 'POST', '/webhooks/provider', {
        rawBody: JSON.stringify(payload),
        headers: { [`${prefix}-signature`]: vector.signature, [`${prefix}-timestamp`]: vector.timestampHeader },
      });
      assert.equal(response.status, 200, vector.name);
    }
    // All vectors share one requestId: the first posts the payment, the rest are duplicates, none is a bad signature.
    const events = await eventsFor(stack, vectors[0]!.payload.requestId);
    assert.deepEqual(
      events.map((event) => [event.category, event.signature_valid]),
      [['payment', true]],
    );
  });

  it("keeps a posted payment's webhook body as a JSON object, so its fields can be read like any recorded event's", async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 1025, fee: 25, senderName: 'ADA OBI', narration: 'Invoice 9' });
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    const requestId = (payload as { requestId: string }).requestId;
    const row = await stack.infra
      .db('inbound_events')
      .where({ request_id: requestId })
      .first(
        stack.infra.db.raw('jsonb_typeof(payload) AS shape'),
        stack.infra.db.raw("payload #>> '{data,transaction,narration}' AS narration"),
      );
    assert.deepEqual({ shape: row.shape, narration: row.narration }, { shape: 'object', narration: 'Invoice 9' });
  });

  it('posts a payment: the net provisional credit, the fee apart, the sender as narration, and one delivery', async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25, senderName: 'ADA OBI', narration: 'Invoice 7' });
    const response = await sendProviderEvent(stack, payload);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { received: true });
    const transactionId = (payload.data as { transaction: { transactionId: string } }).transaction.transactionId;
    const page = await statement(stack, tenant.apiKey, account.AccountRef);
    const line = page.body.lines.find(
      (candidate: { entry: { ProviderTxnRef: string } }) => candidate.entry.ProviderTxnRef === transactionId,
    );
    assert.deepEqual(
      {
        Direction: line.entry.Direction,
        Amount: line.entry.Amount,
        Fee: line.entry.Fee,
        Status: line.entry.Status,
        Narration: line.entry.Narration,
        Currency: line.entry.Currency,
      },
      { Direction: 'credit', Amount: '5000.00', Fee: '25.00', Status: 'provisional', Narration: 'ADA OBI', Currency: 'NGN' },
    );
    const delivery = await stack.infra.db('webhook_deliveries').where({ account_id: account.ID }).orderBy('id', 'desc').first();
    assert.deepEqual(JSON.parse(delivery.payload), {
      eventType: 'payment.received',
      transactionGroupId: line.entry.TransactionGroupId,
      accountRef: account.AccountRef,
      amount: '5000.00',
      gross_amount: '5025.00',
      provider_fee: '25.00',
      currency: 'NGN',
      senderName: 'ADA OBI',
      narration: 'Invoice 7',
      status: 'provisional',
    });
    assert.deepEqual(Object.keys(JSON.parse(delivery.payload)), [
      'eventType',
      'transactionGroupId',
      'accountRef',
      'amount',
      'gross_amount',
      'provider_fee',
      'currency',
      'senderName',
      'narration',
      'status',
    ]);
    // Queued for a batch confirmation in the same statement as the credit, with its own posting time.
    const claim = await stack.infra.db('confirmation_claims').where({ entry_id: line.entry.ID }).first();
    const entry = await stack.infra.db('ledger_entries').where({ id: line.entry.ID }).first('created_at');
    assert.deepEqual([claim.tenant_id, claim.account_ref, claim.provider_txn_ref], [tenant.tenantId, account.AccountRef, transactionId]);
    assert.equal(claim.posted_at.getTime(), entry.created_at.getTime());
  });

  it('makes no delivery for an account without a callbackUrl', async () => {
    const quiet = await provisionAccount(stack, tenant.apiKey);
    await sendProviderEvent(stack, paymentEvent({ accountRef: quiet.AccountRef }));
    assert.equal((await statement(stack, tenant.apiKey, quiet.AccountRef)).body.lines.length, 1);
    assert.equal((await stack.infra.db('webhook_deliveries').where({ account_id: quiet.ID })).length, 0);
  });

  it('records each category and always answers 200, touching no balance but for payments', async () => {
    const balanceBefore = (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
    const cases: Array<[string, Record<string, unknown>, { forged?: boolean }]> = [
      ['misdirected', paymentEvent({ accountRef: 'va_nobody_000000000000' }), {}],
      ['sig_invalid', paymentEvent({ accountRef: account.AccountRef }), { forged: true }],
      ['non_payment_event', paymentEvent({ accountRef: account.AccountRef, eventType: 'terminal_transaction' }), {}],
      ['processing_error', paymentEvent({ accountRef: account.AccountRef, amount: 20, fee: 25 }), {}],
      ['processing_error', paymentEvent({ accountRef: account.AccountRef, amount: 10.005, fee: 0 }), {}],
    ];
    for (const [category, payload, options] of cases) {
      const response = await sendProviderEvent(stack, payload, options);
      assert.equal(response.status, 200, category);
      const events = await eventsFor(stack, payload.requestId as string);
      assert.equal(events.length, 1, category);
      assert.equal(events[0]!.category, category);
    }
    const balanceAfter = (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
    assert.equal(balanceAfter.ledgerBalance, balanceBefore.ledgerBalance);
  });

  it('records a malformed body as far as possible and answers 200', async () => {
    const response = await call(stack.apiUrl, 'POST', '/webhooks/provider', {
      rawBody: '{"event_type": "payment_success", "requestId": ',
      headers: { 'provider-signature': 'x', 'provider-timestamp': 'y' },
    });
    assert.equal(response.status, 200);
    const row = await stack.infra.db('inbound_events').where({ error: 'malformed json' }).orderBy('id', 'desc').first();
    assert.equal(row.category, 'sig_invalid');
    assert.match(row.raw_body, /^\{"event_type"/);
  });

  it('records JSON nested past 32 levels unparsed, while brackets and escaped quotes inside strings are only text', async () => {
    const deep = `{"event_type": "payment_success", "data": ${'['.repeat(40)}${']'.repeat(40)}}`;
    assert.equal(
      (
        await call(stack.apiUrl, 'POST', '/webhooks/provider', {
          rawBody: deep,
          headers: { 'provider-signature': 'x', 'provider-timestamp': 'y' },
        })
      ).status,
      200,
    );
    const row = await stack.infra
      .db('inbound_events')
      .where({ raw_sha256: createHash('sha256').update(deep).digest('hex') })
      .first();
    assert.equal(row.error, 'json nested too deeply');
    const narration = `\\"${'[{'.repeat(40)} "quoted \\" [`;
    const payload = paymentEvent({ accountRef: account.AccountRef, narration });
    assert.equal((await sendProviderEvent(stack, payload)).status, 200);
    const [event] = await eventsFor(stack, payload.requestId as string);
    assert.equal(event!.category, 'payment', 'the narration is text, however many brackets it holds');
  });

  it('keeps an event that fails verification as a SHA-256 and a short prefix, not its bytes', async () => {
    const junk = { ...paymentEvent({ accountRef: account.AccountRef }), padding: 'j'.repeat(40_000) };
    const forgedBody = JSON.stringify(junk);
    assert.equal((await sendProviderEvent(stack, junk, { forged: true })).status, 200);
    const malformedBody = `{"event_type": "payment_success", "junk": "${'m'.repeat(40_000)}`;
    assert.equal(
      (
        await call(stack.apiUrl, 'POST', '/webhooks/provider', {
          rawBody: malformedBody,
          headers: { 'provider-signature': 'x', 'provider-timestamp': 'y' },
        })
      ).status,
      200,
    );
    for (const body of [forgedBody, malformedBody]) {
      const digest = createHash('sha256').update(body).digest('hex');
      const row = await stack.infra.db('inbound_events').where({ raw_sha256: digest }).first();
      assert.ok(row, 'the event is recorded with the digest of its bytes');
      assert.equal(row.category, 'sig_invalid');
      assert.equal(row.payload, null);
      assert.ok(row.raw_body.length <= 256, `stored ${row.raw_body.length} characters`);
      assert.equal(row.raw_body, body.slice(0, row.raw_body.length));
    }
  });

  it('refuses a body over 64 KB with 413, far above any real provider event', async () => {
    const requestId = randomUUID();
    const oversize = { ...paymentEvent({ accountRef: account.AccountRef, requestId }), padding: 'x'.repeat(64 * 1024) };
    const response = await sendProviderEvent(stack, oversize);
    assert.equal(response.status, 413);
    assert.equal(response.body.code, 'payload_too_large');
    assert.deepEqual(await eventsFor(stack, requestId), []);
    const fits = { ...paymentEvent({ accountRef: account.AccountRef }), padding: 'x'.repeat(60 * 1024) };
    assert.equal((await sendProviderEvent(stack, fits)).status, 200);
  });

  it('during a secret rotation accepts events signed with the previous secret too, and nothing else', async () => {
    const previous = paymentEvent({ accountRef: account.AccountRef, amount: 1020, fee: 20 });
    const other = paymentEvent({ accountRef: account.AccountRef, amount: 1030, fee: 30 });
    assert.equal((await sendProviderEvent(stack, previous, { secret: PREVIOUS_SECRET })).status, 200);
    assert.equal((await sendProviderEvent(stack, other, { secret: 'a-secret-nobody-configured' })).status, 200);
    assert.deepEqual(
      (await eventsFor(stack, previous.requestId as string)).map((event) => [event.category, event.signature_valid]),
      [['payment', true]],
    );
    assert.deepEqual(
      (await eventsFor(stack, other.requestId as string)).map((event) => [event.category, event.signature_valid]),
      [['sig_invalid', false]],
    );
  });

  it('a forged event never claims its requestId: the genuine one with the same id is still posted', async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 1010, fee: 10 });
    await sendProviderEvent(
      stack,
      {
        ...payload,
        data: {
          ...(payload.data as object),
          transaction: { ...(payload.data as { transaction: object }).transaction, transactionAmount: 999999 },
        },
      },
      { forged: true },
    );
    await sendProviderEvent(stack, payload);
    const events = await eventsFor(stack, payload.requestId as string);
    assert.deepEqual(
      events.map((event) => event.category),
      ['sig_invalid', 'payment'],
    );
  });

  it('100 concurrent copies of one event make exactly one ledger entry and one outbound delivery', async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 2010, fee: 10 });
    const transactionId = (payload.data as { transaction: { transactionId: string } }).transaction.transactionId;
    const responses = await Promise.all(Array.from({ length: 100 }, () => sendProviderEvent(stack, payload)));
    assert.ok(responses.every((response) => response.status === 200));
    const entries = await stack.infra.db('ledger_entries').where({ provider_txn_ref: transactionId });
    assert.equal(entries.length, 1);
    const deliveries = await stack.infra
      .db('webhook_deliveries')
      .whereRaw(`payload::json->>'transactionGroupId' = ?`, [entries[0].transaction_group_id]);
    assert.equal(deliveries.length, 1);
    assert.equal((await eventsFor(stack, payload.requestId as string)).length, 1);
  });

  it('credits a provider transaction once even under a second requestId', async () => {
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 3010, fee: 10 });
    await sendProviderEvent(stack, payload);
    const again = { ...payload, requestId: randomUUID() };
    assert.equal((await sendProviderEvent(stack, again)).status, 200);
    const events = await eventsFor(stack, again.requestId);
    assert.equal(events[0]!.category, 'processing_error');
    assert.equal(events[0]!.error, 'transaction already credited under another request id');
  });

  it('still records money arriving on an expired one-time account, flagged on the event', async () => {
    const oneTime = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '1010.00' });
    await stack.infra.db('virtual_accounts').where({ id: oneTime.ID }).update({ status: 'expired' });
    const payload = paymentEvent({ accountRef: oneTime.AccountRef, amount: 1010, fee: 10 });
    await sendProviderEvent(stack, payload);
    const [event] = await eventsFor(stack, payload.requestId as string);
    assert.equal(event!.category, 'payment');
    assert.deepEqual(event!.flags, ['account_expired']);
  });
});

describe('inbound provider webhook with the database down', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ DATABASE_URL: 'postgres://ledger:ledger@127.0.0.1:1/ledger' });
  });
  after(() => stack.close());

  it('answers 503 so the provider retries', async () => {
    const response = await sendProviderEvent(stack, paymentEvent({ accountRef: 'va_abcdef_000000000000' }));
    assert.equal(response.status, 503);
    assert.equal(response.body.code, 'unavailable');
    const ready = await call(stack.apiUrl, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.database, 'down');
  });
});

describe('payment confirmation on the dev server', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack({ CONFIRMATION_WINDOW: '3s', CONFIRMATION_POLL_INTERVAL: '500ms' }, { worker: true });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  async function entryStatus(accountRef: string, providerTxnRef: string): Promise<string | undefined> {
    const page = await statement(stack, tenant.apiKey, accountRef);
    return page.body.lines.find((line: { entry: { ProviderTxnRef: string } }) => line.entry.ProviderTxnRef === providerTxnRef)?.entry
      .Status;
  }

  it('confirms a payment the provider knows, within seconds', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
    assert.equal(sent.body.delivery.status, 200);
    await eventually(async () => (await entryStatus(account.AccountRef, sent.body.transactionId)) === 'confirmed', {
      what: 'confirmation',
    });
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.deepEqual(
      { ledger: balance.body.ledgerBalance, available: balance.body.availableBalance, pending: balance.body.pendingCredits },
      { ledger: '5000.00', available: '5000.00', pending: '0.00' },
    );
  });

  it('reverses a payment the provider never saw once the window ends; the original stays visible', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 2010, fee: 10 });
    const transactionId = (payload.data as { transaction: { transactionId: string } }).transaction.transactionId;
    await sendProviderEvent(stack, payload);
    await eventually(async () => (await entryStatus(account.AccountRef, transactionId)) === 'reversed', { what: 'reversal' });
    const page = await statement(stack, tenant.apiKey, account.AccountRef);
    assert.deepEqual(
      page.body.lines.map((line: { entry: { Direction: string; Status: string; Kind: string }; runningBalance: string }) => [
        line.entry.Kind,
        line.entry.Direction,
        line.entry.Status,
        line.runningBalance,
      ]),
      [
        ['payment', 'credit', 'reversed', '2000.00'],
        ['reversal', 'debit', 'confirmed', '0.00'],
      ],
    );
    assert.equal(page.body.closingBalance, '0.00');
  });

  async function reversalReason(accountRef: string): Promise<string | undefined> {
    const page = await statement(stack, tenant.apiKey, accountRef);
    return page.body.lines.find((line: { entry: { Kind: string } }) => line.entry.Kind === 'reversal')?.entry.Narration;
  }

  it('a payment the provider shows PROCESSING past the window stays provisional, then confirms', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    // PROCESSING at the provider until the test says otherwise.
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, status: 'PROCESSING' },
    });
    // Its batch looks it up after the 3 s window is over and keeps it: still provisional, not reversed.
    await keptWaitingPastItsWindow(stack.infra.temporal, sent.body.transactionId);
    assert.equal(await entryStatus(account.AccountRef, sent.body.transactionId), 'provisional');
    await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${sent.body.transactionId}/status`, { body: { status: 'SUCCESS' } });
    await eventually(async () => (await entryStatus(account.AccountRef, sent.body.transactionId)) === 'confirmed', {
      what: 'confirmation',
    });
    assert.equal((await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.length, 1, 'no reversal entry');
  });

  it('reverses a credit whose provider transaction was paid into another account', async () => {
    const [paidInto, credited] = [await provisionAccount(stack, tenant.apiKey), await provisionAccount(stack, tenant.apiKey)];
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: paidInto.AccountRef, amount: 5025, deliver: false },
    });
    // A genuinely signed event naming that transaction, but crediting another account.
    await sendProviderEvent(
      stack,
      paymentEvent({ accountRef: credited.AccountRef, amount: 5025, fee: 25, transactionId: sent.body.transactionId }),
    );
    await eventually(async () => (await entryStatus(credited.AccountRef, sent.body.transactionId)) === 'reversed', { what: 'reversal' });
    assert.equal(
      await reversalReason(credited.AccountRef),
      `reversal: provider credits account ${paidInto.AccountRef}, not ${credited.AccountRef}`,
    );
  });

  it('reverses a credit whose provider transaction is an outgoing transfer of the same amount', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const transfer = await stack.infra.provider.submitTransfer({
      amountKobo: 502_500n,
      accountNumber: '0123456789',
      accountName: 'ADA OBI',
      bankCode: '058',
      merchantTxRef: `mtx_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      senderName: 'Acme',
    });
    await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25, transactionId: transfer.id }));
    await eventually(async () => (await entryStatus(account.AccountRef, transfer.id)) === 'reversed', { what: 'reversal' });
    assert.equal(await reversalReason(account.AccountRef), 'reversal: provider shows an outgoing transfer, not a payment received');
  });

  it('reverses a credit whose gross amount differs from the provider transaction', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, deliver: false },
    });
    await sendProviderEvent(
      stack,
      paymentEvent({ accountRef: account.AccountRef, amount: 50250, fee: 50, transactionId: sent.body.transactionId }),
    );
    await eventually(async () => (await entryStatus(account.AccountRef, sent.body.transactionId)) === 'reversed', { what: 'reversal' });
    assert.equal(await reversalReason(account.AccountRef), 'reversal: provider amount 502500 kobo differs from 5025000 kobo');
  });

  it('expires a one-time account when a payment of its expected amount is confirmed', async () => {
    const account = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '5025.00' });
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
    await eventually(async () => (await entryStatus(account.AccountRef, sent.body.transactionId)) === 'confirmed', {
      what: 'confirmation',
    });
    const read = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey });
    assert.equal(read.body.Status, 'expired');
  });
});

/**
 * Lookups that say "not found" at first, or lag, inside a confirmation window far longer than they take: the credit
 * must end confirmed whatever the machine's speed (in a window of seconds, a slow run's lookups could outlast it).
 */
describe('payment confirmation through early "not found" lookups', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack({ CONFIRMATION_WINDOW: '10m', CONFIRMATION_POLL_INTERVAL: '500ms' }, { worker: true });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  async function entryStatus(accountRef: string, providerTxnRef: string): Promise<string | undefined> {
    const page = await statement(stack, tenant.apiKey, accountRef);
    return page.body.lines.find((line: { entry: { ProviderTxnRef: string } }) => line.entry.ProviderTxnRef === providerTxnRef)?.entry
      .Status;
  }

  it('with lookup lag well inside the window, the credit ends confirmed, not reversed', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, lookupLagMs: 2_000 },
    });
    await eventually(async () => (await entryStatus(account.AccountRef, sent.body.transactionId)) === 'confirmed', {
      what: 'confirmation',
    });
    assert.equal((await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.length, 1, 'no reversal entry');
  });

  it('a payment whose first lookups say "not found" is confirmed once the provider finds it', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, notFoundLookups: 3 },
    });
    await eventually(async () => (await entryStatus(account.AccountRef, sent.body.transactionId)) === 'confirmed', {
      what: 'confirmation',
    });
  });
});
