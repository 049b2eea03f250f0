import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { tierDefaultsOf } from '../../src/policies/kyc-limits/customer-limits';
import { createKnex, type Db } from '../../src/db';
import { uuidv7 } from '../../src/ids';
import { createPostingEngine } from '../../src/ledger/posting-engine';
import { accountHolderName } from '../../src/sandbox/names';
import { cliTenant, provision, type E2eTenant } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import type { RunningSystem } from '../helpers/processes';
import { addOperator, limitToTheRunningTest, newContext, settled, signIn, watchForErrors, type Operator } from './browser';
import { browserSystem, sharedChromium } from './shared';

/** The code an authenticator app shows `aheadMs` from now (a code of the next step is accepted too). */
const codeOf = (secret: string, aheadMs = 0) => generate({ secret, epoch: Math.floor((Date.now() + aheadMs) / 1000) });

/**
 * Maker-checker in a real browser against the real processes, by two users in two browser contexts: an admin sets the
 * approval policy and pays out above its amount (the payout waits, its money set aside, and the admin cannot approve
 * it), then an approver with two-factor sign-in sees it in the Approvals list and approves it with a code, and it pays.
 * A settlement batch at the policy's item count waits likewise, as a whole, and another approver approves it.
 */
describe('payout approvals in a browser: an approval flow by two users', function () {
  let sys: RunningSystem;
  let db: Db;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let maker: Page;
  let checker: Page;
  /** Each page's console errors, CSP refusals and failed requests. */
  const problems: string[][] = [];
  let tenant: E2eTenant;
  let admin: Operator;
  let approver: Operator;
  let approverSecret: string;

  const balanceOf = async (accountRef: string) =>
    (await call(sys.apiUrl, 'GET', `/v1/accounts/${accountRef}/balance`, { apiKey: tenant.apiKey })).body;

  async function pageFor(who: Operator): Promise<Page> {
    const context = await newContext(browser, sys.apiUrl);
    contexts.push(context);
    const page = await context.newPage();
    problems.push(watchForErrors(page));
    await signIn(page, who);
    return page;
  }

  async function open(page: Page, url: string): Promise<void> {
    await page.goto(url);
    await settled(page);
  }

  before(async function () {
    this.timeout(180_000);
    sys = await browserSystem();
    db = createKnex({ DATABASE_URL: sys.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    tenant = await cliTenant(sys, 'Two Keys Ltd');
    admin = await addOperator(db, sys.env, tenant.tenantId, 'admin');
    approver = await addOperator(db, sys.env, tenant.tenantId, 'approver');
    browser = await sharedChromium();
    maker = await pageFor(admin);
    checker = await pageFor(approver);
    // The approver enrols in two-factor sign-in; their code is then older than 5 minutes, as after a long day's session.
    const started = await checker.request.post('/auth/two-factor/enrolment');
    assert.equal(started.status(), 201, await started.text());
    approverSecret = ((await started.json()) as { secret: string }).secret;
    const confirmed = await checker.request.post('/auth/two-factor/enrolment/confirm', { data: { code: await codeOf(approverSecret) } });
    assert.equal(confirmed.status(), 200, await confirmed.text());
    await db('sessions')
      .whereIn('user_id', db('dashboard_users').where({ email: approver.email }).select('id'))
      .update({ code_verified_at: db.raw("now() - interval '6 minutes'") });
  });

  beforeEach(() => {
    for (const context of contexts) limitToTheRunningTest(context);
  });

  after(async function () {
    this.timeout(60_000);
    for (const context of contexts) await context.close();
    await db?.destroy();
  });

  it('user A pays out above the policy’s amount and it waits; user B sees it in the approvals list and approves it with a code; it pays', async () => {
    // A funded account: a confirmed credit of 20,000.00.
    const account = await provision(sys, tenant.apiKey, { externalRef: 'approvals-browser', name: 'Kemi Adeyemi' });
    const ledger = createPostingEngine(db, { tierDefaults: tierDefaultsOf(loadConfig(sys.env)) });
    await db.transaction((trx) =>
      ledger.post(trx, account.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: 2_000_000n,
          status: 'confirmed',
          narration: 'funding',
          providerTxnRef: `browser-${randomUUID()}`,
          transactionGroupId: uuidv7(),
        },
      ]),
    );

    // A (admin) sets the policy on the Approvals page: payouts of 10,000.00 or more wait.
    await open(maker, '/dashboard/approvals');
    await maker.getByText('Off: every payout runs at once.').waitFor();
    await maker.getByRole('button', { name: 'Set a policy' }).click();
    await maker.getByLabel('Payouts at or above (₦)').fill('10000');
    await maker.getByRole('button', { name: 'Save policy' }).click();
    await maker.getByText('Approval policy saved.').waitFor();

    // A pays 15,000.00 from the account: it waits for approval, its amount set aside.
    const accountNumber = `${String(randomInt(100_000, 1_000_000))}0001`;
    await open(maker, `/dashboard/accounts/${account.AccountRef}/settle`);
    await maker.getByLabel('Amount (naira)').fill('15000');
    await maker.getByLabel('Bank').selectOption('058');
    await maker.getByLabel('Account number').fill(accountNumber);
    await maker.getByRole('button', { name: 'Look up the account name' }).click();
    const name = accountHolderName(accountNumber);
    await maker.getByRole('button', { name: `Pay ${name}` }).click();
    await maker.getByRole('dialog', { name: 'Pay this settlement?' }).getByRole('button', { name: 'Pay now' }).click();
    await maker.getByRole('heading', { name: 'Approvals' }).waitFor();
    await settled(maker);
    const mine = maker.getByRole('row', { name: /₦15,000\.00/ });
    assert.match(await mine.innerText(), new RegExp(`${admin.email.replace('+', '\\+')}[\\s\\S]*Yours: another user approves it`));
    assert.equal(await mine.getByRole('button', { name: 'Approve' }).count(), 0, 'the maker is offered no Approve');
    const ref = (await mine.getAttribute('data-ref'))!;
    const held = await balanceOf(account.AccountRef);
    assert.deepEqual([held.heldBalance, held.reserved.payout_approval], ['15000.00', '15000.00']);

    // B (approver) sees it in the list and approves it, after a confirmation and, their last code being stale, a code.
    await open(checker, '/dashboard/approvals');
    const row = checker.getByRole('row', { name: /₦15,000\.00/ });
    assert.match(await row.innerText(), new RegExp(`${name}[\\s\\S]*${accountNumber}`));
    await row.getByRole('button', { name: 'Approve' }).click();
    const dialog = checker.getByRole('dialog', { name: 'Approve ₦15,000.00?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByRole('alert').getByText('Give the code your authenticator app shows now').waitFor();
    assert.equal((await balanceOf(account.AccountRef)).heldBalance, '15000.00', 'not approved without the code');
    // The code of the next step: the enrolment's is spent.
    await dialog.getByLabel('Code from the app').fill(await codeOf(approverSecret, 30_000));
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await checker.getByText(`₦15,000.00 to ${accountNumber} approved: it is being paid.`).waitFor();
    await checker.getByText('Nothing is waiting for approval.').waitFor();

    // It pays once, as any settlement, under the same reference; the money set aside is spent, not held.
    await eventually(
      async () => (await call(sys.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body.status === 'success',
      { what: 'the approved payout paid' },
    );
    assert.equal((await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts, 1);
    const after = await balanceOf(account.AccountRef);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['5000.00', '0.00']);

    // The decided list shows who approved it; the audit log has both users' acts.
    await checker.getByLabel('Status').selectOption('approved');
    await settled(checker);
    assert.match(await checker.getByRole('row', { name: /₦15,000\.00/ }).innerText(), new RegExp(approver.email.replace('+', '\\+')));
    const audit = await db('audit_log').where({ tenant_id: tenant.tenantId, target_id: ref }).orderBy('id').select('action', 'actor');
    assert.deepEqual(
      audit.map((entry) => [entry.action, entry.actor]),
      [
        ['settlement.initiated', admin.email],
        ['settlement.approved', approver.email],
      ],
    );
    assert.deepEqual(problems.flat(), [], 'no console error, CSP refusal or failed request');
  });

  it('user A holds transfers above an amount on the Approvals page; a transfer above it waits; user B approves it there and it moves once', async () => {
    const from = await provision(sys, tenant.apiKey, { externalRef: 'transfer-approvals-from', name: 'Tunde Bello' });
    const to = await provision(sys, tenant.apiKey, { externalRef: 'transfer-approvals-to', name: 'Ada Obi' });
    const ledger = createPostingEngine(db, { tierDefaults: tierDefaultsOf(loadConfig(sys.env)) });
    await db.transaction((trx) =>
      ledger.post(trx, from.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: 1_000_000n,
          status: 'confirmed',
          narration: 'funding',
          providerTxnRef: `browser-${randomUUID()}`,
          transactionGroupId: uuidv7(),
        },
      ]),
    );

    // A (admin) adds to the policy: transfers between accounts above 1,000.00 wait.
    await open(maker, '/dashboard/approvals');
    await maker.getByRole('button', { name: 'Change policy' }).click();
    await maker.getByLabel('Transfers between accounts above (₦)').fill('1000');
    await maker.getByRole('button', { name: 'Save policy' }).click();
    await maker.getByText('Approval policy saved.').waitFor();

    // A transfer of 2,500.00 by the tenant's key waits, its amount set aside; nothing reaches the other account.
    const made = await call(sys.apiUrl, 'POST', `/v1/accounts/${from.AccountRef}/transfers`, {
      apiKey: tenant.apiKey,
      body: { toAccountRef: to.AccountRef, amount: '2500.00' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    assert.deepEqual([made.status, made.body.status], [202, 'awaiting_approval'], made.text);
    assert.deepEqual(
      [(await balanceOf(from.AccountRef)).reserved.transfer_approval, (await balanceOf(to.AccountRef)).ledgerBalance],
      ['2500.00', '0.00'],
    );

    // B (approver) sees it among the held transfers and approves it after a confirmation (their code is fresh now).
    await open(checker, '/dashboard/approvals');
    const row = checker.getByRole('region', { name: 'Transfers between accounts' }).getByRole('row', { name: /₦2,500\.00/ });
    assert.match(await row.innerText(), new RegExp(`${from.AccountRef}[\\s\\S]*${to.AccountRef}[\\s\\S]*API key`));
    await row.getByRole('button', { name: 'Approve' }).click();
    const dialog = checker.getByRole('dialog', { name: 'Approve the transfer of ₦2,500.00?' });
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await checker.getByText(`₦2,500.00 to ${to.AccountRef} approved: it has moved.`).waitFor();
    await checker.getByText('No transfer is waiting for approval.').waitFor();

    const after = [await balanceOf(from.AccountRef), await balanceOf(to.AccountRef)];
    assert.deepEqual([after[0].ledgerBalance, after[0].heldBalance, after[1].ledgerBalance], ['7500.00', '0.00', '2500.00']);
    const transfer = await call(sys.apiUrl, 'GET', `/v1/transfers/internal/${made.body.id}`, { apiKey: tenant.apiKey });
    assert.equal(transfer.body.status, 'completed');
    assert.deepEqual(problems.flat(), [], 'no console error, CSP refusal or failed request');
  });

  it('user A’s settlement batch at the policy’s item count waits as a whole; user B sees its total and flagged item and approves it; each item pays once', async () => {
    const account = await provision(sys, tenant.apiKey, { externalRef: 'batch-approvals-browser', name: 'Tunde Bakare' });
    const ledger = createPostingEngine(db, { tierDefaults: tierDefaultsOf(loadConfig(sys.env)) });
    await db.transaction((trx) =>
      ledger.post(trx, account.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: 1_000_000n,
          status: 'confirmed',
          narration: 'funding',
          providerTxnRef: `browser-${randomUUID()}`,
          transactionGroupId: uuidv7(),
        },
      ]),
    );

    // A (admin) adds to the policy on the Approvals page: batches of 3 items or more wait.
    await open(maker, '/dashboard/approvals');
    await maker.getByRole('button', { name: /Change policy|Set a policy/ }).click();
    await maker.getByLabel('Settlement batches of at least (items)').fill('3');
    await maker.getByRole('button', { name: 'Save policy' }).click();
    await maker.getByText('Approval policy saved.').waitFor();

    // A makes a batch of three items, one of which the dry run flags: it waits, what it would pay set aside.
    const destination = () => `${String(randomInt(100_000, 1_000_000))}0001`;
    const items = [
      { reference: `b-${randomUUID()}`, accountRef: account.AccountRef, amount: '1200.00', bankCode: '058', accountNumber: destination() },
      { reference: `b-${randomUUID()}`, accountRef: account.AccountRef, amount: '800.50', bankCode: '058', accountNumber: destination() },
      {
        reference: `flagged-${randomUUID()}`,
        accountRef: account.AccountRef,
        amount: '5.00',
        bankCode: '999',
        accountNumber: destination(),
      },
    ];
    const made = await maker.request.post('/auth/settlement-batches', { data: { items }, headers: { 'Idempotency-Key': randomUUID() } });
    assert.equal(made.status(), 202, await made.text());
    const batch = (await made.json()) as { id: string; status: string };
    assert.equal(batch.status, 'awaiting_approval');
    assert.deepEqual(
      [(await balanceOf(account.AccountRef)).heldBalance, (await balanceOf(account.AccountRef)).reserved.batch_approval],
      ['2000.50', '2000.50'],
    );
    await open(maker, '/dashboard/approvals');
    const mine = maker.locator(`tr[data-batch="${batch.id}"]`);
    assert.match(await mine.innerText(), /Yours: another user approves it/);
    assert.equal(await mine.getByRole('button', { name: 'Approve' }).count(), 0, 'the maker is offered no Approve');

    // B, another approver (no second factor at a tenant that requires none), sees it and approves it as a whole.
    const second = await addOperator(db, sys.env, tenant.tenantId, 'approver');
    const checker2 = await pageFor(second);
    await open(checker2, '/dashboard/approvals');
    const row = checker2.locator(`tr[data-batch="${batch.id}"]`);
    const shown = await row.innerText();
    for (const expected of ['₦2,000.50', admin.email, items[2]!.reference, 'invalid bank code'])
      assert.ok(shown.includes(expected), `the row shows ${expected}: ${shown}`);
    await row.getByRole('button', { name: 'Approve' }).click();
    const dialog = checker2.getByRole('dialog', { name: 'Approve a batch of 3 items, ₦2,000.50?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await checker2.getByText('Batch of 3 items (₦2,000.50) approved: it is being paid.').waitFor();

    // It runs as any batch: each valid item paid once, the flagged one failed, the money set aside spent, not held.
    const view = async () =>
      (await call(sys.apiUrl, 'GET', `/v1/settlement-batches/${batch.id}`, { apiKey: tenant.apiKey })).body as {
        status: string;
        items: Array<{ merchantTxRef: string | null; status: string }>;
      };
    await eventually(async () => (await view()).status === 'completed_with_failures', { what: 'the approved batch ran' });
    const paid = (await view()).items.filter((item) => item.merchantTxRef !== null);
    assert.deepEqual(
      paid.map((item) => item.status),
      ['success', 'success'],
    );
    for (const item of paid) assert.equal((await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${item.merchantTxRef}`)).body.payouts, 1);
    const after = await balanceOf(account.AccountRef);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['7999.50', '0.00']);
    const audit = await db('audit_log').where({ tenant_id: tenant.tenantId, target_id: batch.id }).orderBy('id').select('action', 'actor');
    assert.deepEqual(
      audit.map((entry) => [entry.action, entry.actor]),
      [
        ['settlement_batch.created', admin.email],
        ['settlement_batch.approved', second.email],
      ],
    );
    assert.deepEqual(problems.flat(), [], 'no console error, CSP refusal or failed request');
  });
});
