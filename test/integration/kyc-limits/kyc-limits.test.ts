import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { createLedgerRepo } from '../../../src/ledger/ledger.repo';
import { call } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { accountHolderName } from '../../../src/sandbox/names';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };
const VERIFIED_NIN = '12345678901';

describe('KYC tier limits', () => {
  let stack: Stack;
  let tenant: TestTenant;
  /** A tenant whose partner bank sets no daily payout limit for tier 1 (the single-credit and balance limits are the defaults). */
  let noDailyLimit: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    noDailyLimit = await createTenant(stack, 'No Daily Limit');
    await stack.infra
      .db('kyc_tier_limits')
      .insert({ tenant_id: noDailyLimit.tenantId, tier: 1, single_credit: 5_000_000, balance: 30_000_000, daily_debits: null });
  });
  after(() => stack.close());

  const settle = (account: ProvisionedAccount, apiKey: string, amount: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey, body: { amount, ...DESTINATION } });
  const balance = async (account: ProvisionedAccount, apiKey: string) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey })).body;
  /** A payment whose net amount (after the provider's fee) is `net` naira. */
  const pay = (account: ProvisionedAccount, net: number) =>
    sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: net + 50, fee: 50 }));

  async function verifyLedger(): Promise<unknown[]> {
    return (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;
  }

  it('a tier-1 customer receiving 120,000.00 in two payments: both credited in full, 20,000.00 held and unspendable, released on tier-2 approval', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    for (const _ of [1, 2]) assert.equal((await pay(account, 60_000)).status, 200);

    const page = await statement(stack, noDailyLimit.apiKey, account.AccountRef);
    assert.deepEqual(
      page.body.lines.map((line: { entry: { Amount: string; Status: string } }) => [line.entry.Amount, line.entry.Status]),
      [
        ['60000.00', 'provisional'],
        ['60000.00', 'provisional'],
      ],
    );
    const held = await balance(account, noDailyLimit.apiKey);
    assert.deepEqual([held.ledgerBalance, held.heldBalance], ['120000.00', '20000.00']);
    const holds = await stack.infra
      .db('ledger_reservations')
      .where({ account_id: account.ID })
      .orderBy('created_at')
      .select('amount', 'kind', 'reason', 'limit_amount', 'tier');
    assert.deepEqual(
      holds.map((hold) => [hold.amount, hold.kind, hold.reason, hold.limit_amount, hold.tier]),
      [
        ['1000000', 'kyc_limit', 'single_credit', '5000000', 1],
        ['1000000', 'kyc_limit', 'single_credit', '5000000', 1],
      ],
    );

    const tooMuch = await settle(account, noDailyLimit.apiKey, '100000.01');
    assert.deepEqual([tooMuch.status, tooMuch.body.error], [400, 'insufficient funds']);
    assert.equal((await settle(account, noDailyLimit.apiKey, '100000.00')).status, 202);
    assert.deepEqual([(await settle(account, noDailyLimit.apiKey, '0.01')).status], [400]);

    const kyc = await call(stack.apiUrl, 'POST', `/v1/customers/${account.CustomerID}/kyc`, {
      apiKey: noDailyLimit.apiKey,
      body: { nin: VERIFIED_NIN },
    });
    assert.equal(kyc.body.KYCTier, 2);
    const released = await balance(account, noDailyLimit.apiKey);
    assert.deepEqual([released.ledgerBalance, released.heldBalance], ['20000.00', '0.00']);
    const releases = await stack.infra.db('ledger_reservation_changes').where({ account_id: account.ID }).select('amount', 'reason');
    assert.deepEqual(
      releases.map((release) => [release.amount, release.reason]),
      [
        ['1000000', 'tier_raised'],
        ['1000000', 'tier_raised'],
      ],
    );
    assert.equal((await settle(account, noDailyLimit.apiKey, '20000.00')).status, 202);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('an insufficient-funds refusal of money a KYC limit holds says what may be spent, what is held and why (settle, transfer, dashboard)', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    const other = await provisionAccount(stack, noDailyLimit.apiKey);
    // 60,000.00 credited to a tier-1 customer: 10,000.00 over the single-credit limit is held.
    assert.equal((await pay(account, 60_000)).status, 200);
    assert.deepEqual((await balance(account, noDailyLimit.apiKey)).heldBalance, '10000.00');
    const heldRefusal = {
      error: 'insufficient funds',
      code: 'insufficient_funds',
      available: '50000.00',
      held: '10000.00',
      reason: "held by the customer's KYC limits",
    };
    const without = ({ requestId: _, ...body }: Record<string, unknown>) => body;

    const settled = await settle(account, noDailyLimit.apiKey, '55000.00');
    assert.equal(settled.status, 400, settled.text);
    assert.deepEqual(without(settled.body), heldRefusal);

    const transferred = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/transfers`, {
      apiKey: noDailyLimit.apiKey,
      headers: { 'Idempotency-Key': `held-${account.AccountRef}` },
      body: { toAccountRef: other.AccountRef, amount: '55000.00' },
    });
    // A transfer spends only confirmed money: the payment is still provisional here (the sandbox has no record of
    // this signed event, so its lookup finds nothing within the window), so nothing may move and the refusal says why.
    assert.equal(transferred.status, 400, transferred.text);
    assert.deepEqual(without(transferred.body), {
      error: 'insufficient funds',
      code: 'insufficient_funds',
      available: '0.00',
      held: '10000.00',
      pending: '60000.00',
      reason: "held by the customer's KYC limits; not yet confirmed by the provider",
    });

    // The dashboard's settle answers the same body, which its page shows beside the refusal.
    const cookie = await dashboardSession(stack, noDailyLimit.tenantId, 'operator');
    const onPage = await call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
      cookie,
      headers: { 'Idempotency-Key': `held-page-${account.AccountRef}` },
      body: { amount: '55000.00', ...DESTINATION, confirmedAccountName: accountHolderName(DESTINATION.accountNumber) },
    });
    assert.equal(onPage.status, 400, onPage.text);
    assert.deepEqual(without(onPage.body), heldRefusal);

    // Nothing held: held money is no part of why, and the refusal is SPEC.md's plain one.
    const plain = await settle(other, noDailyLimit.apiKey, '1.00');
    assert.deepEqual(without(plain.body), { error: 'insufficient funds', code: 'insufficient_funds' });
    assert.equal((await settle(account, noDailyLimit.apiKey, '50000.00')).status, 202);
  });

  it('holds the part of a credit that takes the unheld balance past the tier balance limit', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    for (const kobo of [5_000_000n, 5_000_000n, 5_000_000n, 5_000_000n, 5_000_000n, 4_000_000n]) await fundAccount(stack, account.ID, kobo);
    assert.equal((await pay(account, 30_000)).status, 200);
    const after = await balance(account, noDailyLimit.apiKey);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['320000.00', '20000.00']);
    const [hold] = await stack.infra.db('ledger_reservations').where({ account_id: account.ID }).select('amount', 'reason', 'limit_amount');
    assert.deepEqual([hold.amount, hold.reason, hold.limit_amount], ['2000000', 'balance', '30000000']);
  });

  it('refuses a tier-1 payout that would take the day past the daily limit, naming the limit', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 4_000_000n);
    await fundAccount(stack, account.ID, 4_000_000n);
    assert.equal((await settle(account, tenant.apiKey, '30000.00')).status, 202);
    const refused = await settle(account, tenant.apiKey, '20000.01');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'daily_debit_limit_exceeded');
    assert.equal(refused.body.error, 'amount exceeds the tier 1 daily payout limit of 50000.00 (20000.00 left today, Africa/Lagos)');
    assert.equal((await settle(account, tenant.apiKey, '20000.00')).status, 202);
    assert.deepEqual((await balance(account, tenant.apiKey)).ledgerBalance, '30000.00');
  });

  it('50 concurrent credits and settles to one account: held, available and ledger balances agree with the limits and ledger:verify', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    const work = Array.from({ length: 50 }, (_, index) =>
      index % 2 === 0 ? pay(account, 20_000) : settle(account, noDailyLimit.apiKey, '1000.00'),
    );
    const responses = await Promise.all(work);
    const credits = responses.filter((_, index) => index % 2 === 0);
    const settles = responses.filter((_, index) => index % 2 === 1);
    assert.ok(credits.every((response) => response.status === 200));
    assert.ok(
      settles.every((response) => response.status === 202 || (response.status === 400 && response.body.error === 'insufficient funds')),
    );
    const accepted = settles.filter((response) => response.status === 202).length;

    const row = await stack.infra.db('virtual_accounts').where({ id: account.ID }).first('ledger_balance', 'held_balance');
    const ledger = BigInt(row.ledger_balance);
    const held = BigInt(row.held_balance);
    assert.equal(ledger, 25n * 2_000_000n - BigInt(accepted) * 100_000n);
    assert.ok(held >= 0n && held <= ledger, `held ${held} within ledger ${ledger}`);
    assert.ok(ledger - held <= 30_000_000n, 'the unheld balance never passes the tier-1 balance limit');
    // 500,000.00 received, at most 25,000.00 spent, at most 300,000.00 unheld: 175,000.00 at least is held.
    assert.ok(held >= 17_500_000n, `held ${held}`);
    const shown = await balance(account, noDailyLimit.apiKey);
    assert.equal(shown.heldBalance, `${held / 100n}.00`);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('an operator sees held money in the queue and releases it with a reason, audited; a viewer cannot', async () => {
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const viewer = await dashboardSession(stack, tenant.tenantId, 'viewer');
    const account = await provisionAccount(stack, tenant.apiKey, { name: 'Held Customer' });
    assert.equal((await pay(account, 70_000)).status, 200);

    const queue = await call(stack.apiUrl, 'GET', '/auth/holds', { cookie: viewer });
    assert.equal(queue.status, 200);
    const row = queue.body.holds.find((hold: { accountRef: string }) => hold.accountRef === account.AccountRef);
    assert.deepEqual(
      { ...row, entryId: undefined, since: undefined },
      {
        entryId: undefined,
        since: undefined,
        accountRef: account.AccountRef,
        customerId: account.CustomerID,
        customerName: 'Held Customer',
        tier: 1,
        held: '20000.00',
        creditAmount: '70000.00',
        senderName: 'ADA OBI',
        limit: 'single_credit',
        limitAmount: '50000.00',
        reason: null,
      },
    );
    assert.ok(Number(queue.body.totalHeld) >= 20_000);

    const release = (cookie: string, body: unknown) => call(stack.apiUrl, 'POST', `/auth/holds/${row.entryId}/release`, { cookie, body });
    assert.equal((await release(viewer, { note: 'customer showed a payslip' })).status, 403);
    const noNote = await release(operator, {});
    assert.equal(noNote.status, 400);
    const released = await release(operator, { note: 'customer showed a payslip' });
    assert.deepEqual([released.status, released.body.released], [200, '20000.00']);
    assert.equal((await balance(account, tenant.apiKey)).heldBalance, '0.00');
    const group = (await stack.infra.db('ledger_entries').where({ id: row.entryId }).first('transaction_group_id')).transaction_group_id;
    const told = await stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId, subject: account.CustomerID })
      .select('type', 'data');
    assert.deepEqual(told, [
      {
        type: 'kyc.hold_released',
        data: { customerId: account.CustomerID, transactionGroupId: group, amount: '20000.00', currency: 'NGN', reason: 'operator' },
      },
    ]);
    const again = await release(operator, { note: 'twice' });
    assert.deepEqual([again.status, again.body.error], [404, 'held credit not found']);
    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'kyc_hold.released' }).first('detail');
    assert.deepEqual(
      [audit.detail.amount, audit.detail.note, audit.detail.accountRef],
      ['20000.00', 'customer showed a payslip', account.AccountRef],
    );
    const [change] = await stack.infra
      .db('ledger_reservation_changes')
      .where({ account_id: account.ID })
      .select('reason', 'note', 'amount');
    assert.deepEqual([change.reason, change.note, change.amount], ['operator', 'customer showed a payslip', '2000000']);
  });

  it('reversing a credit with a held part releases the hold first', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await pay(account, 70_000)).status, 200);
    const [hold] = await stack.infra.db('ledger_reservations').where({ account_id: account.ID }).select('owner_id as entry_id');
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.reverse(trx, hold.entry_id, 'provider did not confirm'));
    const after = await balance(account, tenant.apiKey);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['0.00', '0.00']);
    const [change] = await stack.infra.db('ledger_reservation_changes').where({ account_id: account.ID }).select('reason', 'amount');
    assert.deepEqual([change.reason, change.amount], ['credit_reversed', '2000000']);
    assert.deepEqual(await verifyLedger(), []);

    // The provider shows it paid after all: the restoration is judged like the credit was.
    await stack.infra.db.transaction(async (trx) => {
      const original = await stack.services.postingEngine.reverse(trx, hold.entry_id, 'unused');
      assert.equal(original, undefined, 'already reversed');
      const entries = createLedgerRepo(trx);
      const credit = await entries.findEntry(hold.entry_id, trx);
      const reversal = await entries.findReversalOf(hold.entry_id, trx);
      await stack.services.postingEngine.restoreReversedCredit(trx, credit!, reversal!, 'restored');
    });
    const restored = await balance(account, tenant.apiKey);
    assert.deepEqual([restored.ledgerBalance, restored.heldBalance], ['70000.00', '20000.00']);
    assert.deepEqual(await verifyLedger(), []);
  });

  it("a tenant's own tier limits and an admin's limits for one customer apply to later credits; bad limits are a clear 400", async () => {
    const own = await createTenant(stack, 'Own Limits');
    const admin = await dashboardSession(stack, own.tenantId);
    const operator = await dashboardSession(stack, own.tenantId, 'operator');
    const put = (path: string, body: unknown, cookie = admin) => call(stack.apiUrl, 'PUT', path, { cookie, body });

    const negative = await put('/auth/kyc-limits/1', { singleCredit: '-1', balance: null, dailyDebits: null });
    assert.deepEqual(
      [negative.status, negative.body.error],
      [400, 'a limit must be a naira amount of 0 or more (at most two decimals), or null for no limit'],
    );
    const badTier = await put('/auth/kyc-limits/4', { singleCredit: '1', balance: null, dailyDebits: null });
    assert.deepEqual([badTier.status, badTier.body.error], [400, 'tier must be 1, 2 or 3']);
    assert.equal(
      (await put('/auth/kyc-limits/1', { singleCredit: '10000', balance: '300000', dailyDebits: '50000' }, operator)).status,
      403,
    );

    const set = await put('/auth/kyc-limits/1', { singleCredit: '10000', balance: '200000', dailyDebits: '50000' });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.tiers, [
      { tier: 1, source: 'tenant', singleCredit: '10000.00', balance: '200000.00', dailyDebits: '50000.00' },
      { tier: 2, source: 'platform', singleCredit: '100000.00', balance: '500000.00', dailyDebits: '200000.00' },
      { tier: 3, source: 'platform', singleCredit: null, balance: null, dailyDebits: '5000000.00' },
    ]);
    const account = await provisionAccount(stack, own.apiKey);
    assert.equal((await pay(account, 15_000)).status, 200);
    assert.equal((await balance(account, own.apiKey)).heldBalance, '5000.00');

    // Within the platform's limits, looser than the tenant's own.
    const trusted = await provisionAccount(stack, own.apiKey);
    const customerLimits = await put(`/auth/customers/${trusted.CustomerID}/kyc-limits`, {
      singleCredit: '20000',
      balance: '100000',
      dailyDebits: '1000',
    });
    assert.deepEqual(
      [customerLimits.status, customerLimits.body.limits],
      [200, { singleCredit: '20000.00', balance: '100000.00', dailyDebits: '1000.00' }],
    );
    assert.equal((await pay(trusted, 15_000)).status, 200);
    assert.equal((await balance(trusted, own.apiKey)).heldBalance, '0.00');
    const foreign = await put(
      `/auth/customers/${account.CustomerID}/kyc-limits`,
      { singleCredit: null, balance: null, dailyDebits: null },
      await dashboardSession(stack, tenant.tenantId),
    );
    assert.deepEqual([foreign.status, foreign.body.error], [404, 'customer not found']);
    const audited = await stack.infra.db('audit_log').where({ tenant_id: own.tenantId, action: 'kyc_limits.changed' }).count({ n: '*' });
    assert.equal(Number(audited[0]!.n), 2);
  });

  it("only an admin sets a customer's limits, and none looser than the platform's unless the platform operator allows the tenant them", async () => {
    const loose = await createTenant(stack, 'Loose Limits');
    const admin = await dashboardSession(stack, loose.tenantId);
    const operator = await dashboardSession(stack, loose.tenantId, 'operator');
    const put = (path: string, body: unknown, cookie = admin) => call(stack.apiUrl, 'PUT', path, { cookie, body });
    const account = await provisionAccount(stack, loose.apiKey);
    const customerPath = `/auth/customers/${account.CustomerID}/kyc-limits`;
    const noLimits = { singleCredit: null, balance: null, dailyDebits: null };

    assert.equal((await put(customerPath, noLimits, operator)).status, 403);
    assert.equal((await call(stack.apiUrl, 'DELETE', customerPath, { cookie: operator })).status, 403);
    const refused = await put(customerPath, noLimits);
    assert.deepEqual(
      [refused.status, refused.body.code, refused.body.error],
      [
        403,
        'limits_looser_than_platform',
        "limits looser than the platform's for tier 1, the customer's: singleCredit no limit (platform's 50000.00), balance no limit (platform's 300000.00), dailyDebits no limit (platform's 50000.00); only the platform operator can allow this tenant looser limits",
      ],
    );
    const tier = await put('/auth/kyc-limits/2', { singleCredit: '100000', balance: '500000', dailyDebits: '200000.01' });
    assert.deepEqual(
      [tier.status, tier.body.error],
      [
        403,
        "limits looser than the platform's for tier 2: dailyDebits 200000.01 (platform's 200000.00); only the platform operator can allow this tenant looser limits",
      ],
    );

    await runCli('tenant:allow-loose-limits', '--tenant', loose.tenantId);
    assert.deepEqual((await put(customerPath, noLimits)).body.limits, noLimits);
    assert.equal((await put('/auth/kyc-limits/2', { singleCredit: '100000', balance: '500000', dailyDebits: '200000.01' })).status, 200);
    assert.equal((await pay(account, 70_000)).status, 200);
    assert.equal((await balance(account, loose.apiKey)).heldBalance, '0.00');

    // Revoked: each looser limit becomes the platform's, in the tenant's audit log.
    const revoked = JSON.parse((await runCli('tenant:revoke-loose-limits', '--tenant', loose.tenantId, '--json')).stdout);
    assert.deepEqual(revoked, {
      tenantId: loose.tenantId,
      looseLimitsAllowed: false,
      tightened: ['tier 2', `customer ${account.CustomerID}`],
    });
    assert.deepEqual((await call(stack.apiUrl, 'GET', customerPath, { cookie: operator })).body.limits, {
      singleCredit: '50000.00',
      balance: '300000.00',
      dailyDebits: '50000.00',
    });
    const tiers = (await call(stack.apiUrl, 'GET', '/auth/kyc-limits', { cookie: operator })).body.tiers;
    assert.deepEqual(tiers[1], { tier: 2, source: 'tenant', singleCredit: '100000.00', balance: '500000.00', dailyDebits: '200000.00' });
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: loose.tenantId, action: 'kyc_limits.changed', actor: 'platform operator' })
      .select('target_type');
    assert.deepEqual(audit.map((row: { target_type: string }) => row.target_type).sort(), ['customer', 'kyc_tier']);
    assert.equal((await put(customerPath, noLimits)).status, 403);
    await assert.rejects(runCli('tenant:allow-loose-limits', '--tenant', '00000000-0000-7000-8000-000000000000'), /tenant not found/);
  });

  it("an operator records tier 3 with its evidence, which lifts the holds and tells the tenant's endpoints; bad evidence is a clear 400", async () => {
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await pay(account, 70_000)).status, 200);
    assert.equal((await balance(account, tenant.apiKey)).heldBalance, '20000.00');
    const record = (body: unknown) =>
      call(stack.apiUrl, 'POST', `/auth/customers/${account.CustomerID}/kyc/tier3`, { cookie: operator, body });
    const bad = await record({ evidenceKind: 'horoscope', evidenceReference: 'x' });
    assert.deepEqual(
      [bad.status, bad.body.error],
      [400, 'evidenceKind must be one of address_verification, utility_bill, bank_reference, in_person_verification, other'],
    );
    const recorded = await record({ evidenceKind: 'utility_bill', evidenceReference: 'IKEDC-2026-11-0042' });
    assert.deepEqual([recorded.status, recorded.body.KYCTier], [200, 3]);
    assert.equal((await balance(account, tenant.apiKey)).heldBalance, '0.00');
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, action: 'kyc.tier_three_recorded' })
      .first('detail');
    assert.deepEqual([audit.detail.evidenceKind, audit.detail.evidenceReference], ['utility_bill', 'IKEDC-2026-11-0042']);
    const told = await stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId, subject: account.CustomerID })
      .orderBy('sequence')
      .select('type', 'sequence', 'data');
    assert.deepEqual(told, [
      {
        type: 'kyc.approved',
        sequence: 1,
        data: { customerId: account.CustomerID, externalRef: recorded.body.ExternalRef, tier: '3', reason: null },
      },
      {
        type: 'kyc.hold_released',
        sequence: 2,
        data: { customerId: account.CustomerID, transactionGroupId: null, amount: '20000.00', currency: 'NGN', reason: 'tier_raised' },
      },
    ]);
    assert.equal((await record({ evidenceKind: 'other', evidenceReference: 'again' })).status, 409);
  });

  it("a held credit records kyc.limit_exceeded for the tenant's endpoints after its payment.received, from the webhook and from an operator-assigned payment alike", async () => {
    const account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: 'http://127.0.0.1:9/hook' });
    assert.equal((await pay(account, 70_000)).status, 200);
    assert.equal((await pay(account, 1_000)).status, 200);
    const events = async () =>
      (
        await stack.infra
          .db('tenant_events')
          .where({ tenant_id: tenant.tenantId })
          .whereRaw("data->>'accountRef' = ?", [account.AccountRef])
          .orderBy(['created_at', 'id'])
      ).map((row: { type: string; subject: string; sequence: number; data: Record<string, unknown> }) => row);
    const recorded = await events();
    assert.deepEqual(recorded.map((event) => event.type).sort(), ['kyc.limit_exceeded', 'payment.received', 'payment.received']);
    const exceeded = recorded.find((event) => event.type === 'kyc.limit_exceeded')!;
    const received = recorded.find((event) => event.type === 'payment.received' && event.data.amount === '70000.00')!;
    assert.deepEqual(
      [received.subject, received.sequence, exceeded.subject, exceeded.sequence],
      [received.data.transactionGroupId, 1, received.data.transactionGroupId, 2],
    );
    assert.deepEqual(exceeded.data, {
      transactionGroupId: received.data.transactionGroupId,
      accountRef: account.AccountRef,
      amount: '70000.00',
      heldAmount: '20000.00',
      currency: 'NGN',
      tier: 1,
      limit: 'single_credit',
      limitAmount: '50000.00',
    });
    // The account's callbackUrl gets the spec's payment.received only.
    const callbacks = await stack.infra.db('webhook_deliveries').where({ account_id: account.ID }).select('payload');
    assert.ok(callbacks.every((row: { payload: string }) => JSON.parse(row.payload).eventType === 'payment.received'));

    // A payment to a mistyped reference, assigned by an operator, is judged like a webhook.
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const { ref_prefix: prefix } = await stack.infra.db('tenants').where({ id: tenant.tenantId }).first('ref_prefix');
    const transactionId = `API-VACT_TRA-misdirected-${account.ID}`;
    const misdirected = paymentEvent({ accountRef: `va_${prefix}_zzzzzzzzzzzz`, amount: 60_050, fee: 50, transactionId });
    assert.equal((await sendProviderEvent(stack, misdirected)).status, 200);
    const listed = await call(stack.apiUrl, 'GET', '/auth/misdirected-payments', { cookie: operator });
    const payment = listed.body.misdirectedPayments.find((row: { TransactionID: string }) => row.TransactionID === transactionId);
    const assigned = await call(stack.apiUrl, 'POST', `/auth/misdirected-payments/${payment.ID}/assign`, {
      cookie: operator,
      body: { accountRef: account.AccountRef },
    });
    assert.equal(assigned.status, 201);
    assert.equal((await balance(account, tenant.apiKey)).heldBalance, '30000.00');
    const last = (await events()).filter((event) => event.type === 'kyc.limit_exceeded').at(-1)!;
    assert.deepEqual(
      [last.data.amount, last.data.heldAmount, last.data.limit, last.sequence],
      ['60000.00', '10000.00', 'single_credit', 2],
    );
  });
});
