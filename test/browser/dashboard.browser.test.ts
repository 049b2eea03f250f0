import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { UserRole } from '../../src/http/roles';
import { loadConfig } from '../../src/config';
import { tierDefaultsOf } from '../../src/policies/kyc-limits/customer-limits';
import { createKnex, type Db } from '../../src/db';
import { uuidv7 } from '../../src/ids';
import { createPostingEngine } from '../../src/ledger/posting-engine';
import { accountHolderName } from '../../src/sandbox/names';
import { cliTenant, provision, type E2eTenant } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import type { RunningSystem } from '../helpers/processes';
import { startReceiver } from '../helpers/receiver';
import {
  addOperator,
  artifactsDir,
  assertAccessible,
  DESKTOP,
  horizontalOverflow,
  limitToTheRunningTest,
  newContext,
  PHONE,
  screenshot,
  settled,
  signIn,
  watchForErrors,
  type Operator,
} from './browser';
import { browserSystem, sharedChromium } from './shared';
import { unverifiedNin } from '../helpers/sandbox-values';

/** The main account's statement: past 100 entries, so that it has three pages. */
const PAYMENTS = 105;
/**
 * Of them, the first are paid at the sandbox (webhook, confirmation, the provider's fee): the statement's first line
 * and the transaction the books open from it are these. The rest are paid at the sandbox without their webhooks and
 * credited through the ledger as confirmed, as the paging needs their number, not each one's confirmation.
 */
const PAID_AT_THE_SANDBOX = 5;
const PAYMENT_NAIRA = 1000;
/** What lands per payment: the sandbox's default fee on 1,000.00 sent is 10.00. */
const NET_PER_PAYMENT = '990.00';
const FEE_PER_PAYMENT_KOBO = 1_000n;
const DESTINATION = { bankCode: '058', bankName: 'Guaranty Trust Bank', accountNumber: '0123456789' };
/** The deficit account: 500.00 credited provisionally, 300.00 of it settled, then the credit reversed. */
const DEFICIT = { credit: 50_000n, settled: '300.00', ledger: '−₦300.00' };
/**
 * Payments to the reconciliation account, confirmed, then taken back by the payer's bank at the provider
 * (its REFUND, with no event): each is a confirmed credit the provider shows refunded, which only a
 * reconciliation run finds. Sent (naira) → credited (after the provider's fee).
 */
const TAKEN_BACK = [
  { sent: 2010, credited: 2000 },
  { sent: 3010, credited: 3000 },
  { sent: 5025, credited: 5000 },
] as const;
const TAKEN_BACK_TOTAL = TAKEN_BACK.reduce((sum, payment) => sum + payment.credited, 0);
const RESOLUTION_NOTE = 'Payer bank recalled it; customer refunded off-platform, ticket 4410';
const COMPENSATION_NOTE = 'Payer bank recalled it, ticket 4411';

/**
 * The dashboard in a real browser against the real processes `npm start` runs (API, worker, sandbox):
 * an operator's day, step by step, each step checked on the page; then every page at desktop and
 * phone width, screenshotted and checked with axe.
 */
describe('dashboard in a browser', function () {
  let sys: RunningSystem;
  let db: Db;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let tenant: E2eTenant;
  let admin: Operator;
  let main: { AccountRef: string; ID: string };
  let inDeficit: { AccountRef: string; ID: string };
  let reconciled: { AccountRef: string; ID: string };
  let runId = '';
  let resolvedExceptionId = '';
  let kycCustomer: { id: string; name: string };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let settlementRef = '';
  let misdirectedTransactionId = '';
  let deliveryId = '';
  const pagesSeen = new Map<string, string>();
  const started = Date.now();

  const user = (tenantId: string, role: UserRole): Promise<Operator> => addOperator(db, sys.env, tenantId, role);

  /** A payment at the sandbox provider (its webhook follows); answers the provider's transaction id. */
  async function pay(accountRef: string, amount = PAYMENT_NAIRA, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef, amount, senderName: 'TOLU ADEWALE', narration: 'Invoice', ...extra },
    });
    assert.equal(response.status, 200, response.text);
    return response.body.transactionId;
  }

  async function balanceOf(accountRef: string): Promise<{ ledgerBalance: string; pendingCredits: string; heldBalance: string }> {
    return (await call(sys.apiUrl, 'GET', `/v1/accounts/${accountRef}/balance`, { apiKey: tenant.apiKey })).body;
  }

  /**
   * A deficit, as the settlement test makes one: a provisional credit (the provider has not
   * confirmed it yet) is spent by a settlement, then reversed. The account ends below zero.
   */
  async function spendThenReverseProvisionalCredit(account: { AccountRef: string; ID: string }): Promise<void> {
    const ledger = createPostingEngine(db, { tierDefaults: tierDefaultsOf(loadConfig(sys.env)) });
    const [credit] = await db.transaction((trx) =>
      ledger.post(trx, account.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: DEFICIT.credit,
          status: 'provisional',
          narration: 'not yet confirmed',
          providerTxnRef: `browser-${randomUUID()}`,
          transactionGroupId: uuidv7(),
        },
      ]),
    );
    const settled = await call(sys.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { amount: DEFICIT.settled, bankCode: DESTINATION.bankCode, accountNumber: DESTINATION.accountNumber },
    });
    assert.equal(settled.status, 202, settled.text);
    await db.transaction((trx) => ledger.reverse(trx, credit!.id, 'provider did not confirm'));
  }

  /**
   * Payments of 1,000.00 made at the sandbox without their webhooks (the provider knows them, as a reconciliation run
   * reads it), credited to the account as their confirmation leaves them: confirmed, net of the provider's fee.
   */
  async function creditConfirmedPayments(account: { AccountRef: string; ID: string }, count: number): Promise<void> {
    const transactionIds = await Promise.all(
      Array.from({ length: count }, () => pay(account.AccountRef, PAYMENT_NAIRA, { suppressWebhook: true })),
    );
    const ledger = createPostingEngine(db, { tierDefaults: tierDefaultsOf(loadConfig(sys.env)) });
    await db.transaction((trx) =>
      ledger.post(
        trx,
        account.ID,
        transactionIds.map((transactionId) => ({
          direction: 'credit' as const,
          kind: 'payment' as const,
          amount: BigInt(PAYMENT_NAIRA) * 100n - FEE_PER_PAYMENT_KOBO,
          fee: FEE_PER_PAYMENT_KOBO,
          status: 'confirmed' as const,
          narration: 'TOLU ADEWALE',
          providerTxnRef: transactionId,
          transactionGroupId: uuidv7(),
        })),
      ),
    );
  }

  /** Opens a page by URL, waits for its data, and remembers it for the screenshot pass. */
  async function open(name: string, url: string): Promise<void> {
    pagesSeen.set(name, url);
    await page.goto(url);
    await settled(page);
  }

  before(async function () {
    this.timeout(240_000);
    receiver = await startReceiver([500]);
    // Its Schedule's reconciliation runs off (see browserSystem): only the runs the test starts find the refunded payments.
    sys = await browserSystem();
    db = createKnex({ DATABASE_URL: sys.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    tenant = await cliTenant(sys, 'Browser Tenant Ltd');
    admin = await user(tenant.tenantId, 'admin');

    main = await provision(sys, tenant.apiKey, { externalRef: 'browser-main', name: 'Kemi Adeyemi' });
    const kyc = await provision(sys, tenant.apiKey, { externalRef: 'browser-kyc', name: 'Bayo Ogunleye' });
    const hooked = await provision(sys, tenant.apiKey, { externalRef: 'browser-hook', name: 'Ifeoma Eze', callbackUrl: receiver.url });
    inDeficit = await provision(sys, tenant.apiKey, { externalRef: 'browser-deficit', name: 'Chidi Okafor' });
    reconciled = await provision(sys, tenant.apiKey, { externalRef: 'browser-recon', name: 'Ngozi Balogun' });
    const takenBack = await Promise.all(TAKEN_BACK.map((payment) => pay(reconciled.AccountRef, payment.sent, { senderName: 'ADA OBI' })));
    await spendThenReverseProvisionalCredit(inDeficit);
    const kycAccount = (await call(sys.apiUrl, 'GET', `/v1/accounts/${kyc.AccountRef}`, { apiKey: tenant.apiKey })).body;
    kycCustomer = { id: kycAccount.CustomerID, name: 'Bayo Ogunleye' };
    const submitted = await call(sys.apiUrl, 'POST', `/v1/customers/${kycCustomer.id}/kyc`, {
      apiKey: tenant.apiKey,
      body: { nin: unverifiedNin('123456789') },
    });
    assert.equal(submitted.body.KYCStatus, 'pending_review');

    await Promise.all(Array.from({ length: PAID_AT_THE_SANDBOX }, () => pay(main.AccountRef)));
    // The paid ones first on the statement: the rest are posted once the webhooks have credited them.
    await eventually(async () => (await balanceOf(main.AccountRef)).ledgerBalance === (990 * PAID_AT_THE_SANDBOX).toFixed(2), {
      intervalMs: 250,
      what: `${PAID_AT_THE_SANDBOX} payments credited`,
    });
    await creditConfirmedPayments(main, PAYMENTS - PAID_AT_THE_SANDBOX);
    const prefix = /^va_([a-z0-9]{6})_/.exec(main.AccountRef)![1]!;
    misdirectedTransactionId = await pay(`va_${prefix}_zzzzzzzzzzzz`, 2500, { senderName: 'MISDIRECTED SENDER' });
    await pay(hooked.AccountRef, 500);

    await eventually(
      async () => {
        const letters = (await call(sys.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey })).body.deadLetters;
        return letters.length === 1 && letters[0].ID;
      },
      { intervalMs: 500, what: 'the dead letter' },
    );
    receiver.answer([200]);
    await eventually(
      async () => {
        const balance = await balanceOf(main.AccountRef);
        return balance.pendingCredits === '0.00' && balance.ledgerBalance === (990 * PAYMENTS).toFixed(2);
      },
      { intervalMs: 1_000, what: `${PAYMENTS} payments credited and confirmed` },
    );
    await eventually(
      async () => {
        const balance = await balanceOf(reconciled.AccountRef);
        return balance.pendingCredits === '0.00' && balance.ledgerBalance === TAKEN_BACK_TOTAL.toFixed(2);
      },
      { intervalMs: 500, what: 'the payments to the reconciliation account confirmed' },
    );
    for (const transactionId of takenBack) {
      const refunded = await call(sys.sandboxUrl, 'POST', `/sandbox/payments/${transactionId}/status`, { body: { status: 'REFUND' } });
      assert.equal(refunded.status, 200, refunded.text);
    }

    browser = await sharedChromium();
    context = await newContext(browser, sys.apiUrl);
    page = await context.newPage();
    problems = watchForErrors(page);
    console.log(
      `      seeded the stack and started ${browser.version()} in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots: ${artifactsDir()}`,
    );
  });

  beforeEach(() => {
    if (context) limitToTheRunningTest(context);
  });

  after(async function () {
    this.timeout(60_000);
    await context?.close();
    await db?.destroy();
    await receiver?.close();
    console.log(`      browser layer took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it('shows the sign-in page to a visitor without a session, then signs in and says who and which tenant', async () => {
    const response = await page.goto('/dashboard/accounts');
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in', 'desktop');

    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('the wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That email and password do not match a user.').waitFor();

    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Signing in keeps the page asked for.
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
    assert.equal(await page.getByTestId('whoami').innerText(), `${admin.email} (admin)`);
    assert.match(await page.locator('.brand').innerText(), /Browser Tenant Ltd/);
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'session');
    assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
    assert.equal(session?.sameSite, 'Strict');
  });

  it('shows the overview: balances, flows and what needs attention', async () => {
    await open('overview', '/dashboard');
    // The main account's payments, the 500.00 (net 490.00) that went to the account with a callback,
    // the deficit account's −300.00 and the reconciliation account's payments.
    assert.equal(
      await page.getByTestId('ledger-balance').innerText(),
      `₦${(990 * PAYMENTS + 490 - 300 + TAKEN_BACK_TOTAL).toLocaleString('en-US')}.00`,
    );
    const attention = await page.locator('.attention').innerText();
    assert.match(attention, /1\s+KYC reviews waiting/);
    assert.match(attention, /1\s+Misdirected payments to assign/);
    assert.match(attention, /1\s+Dead letters not replayed/);
    assert.match(attention, /1\s+Accounts in deficit/);
    assert.match(attention, /\b0\s+Reconciliation exceptions open/);
    await page.locator('.flow-chart canvas').first().waitFor();
    await page.getByText('The same figures as a table').click();
    await assertAccessible(page, 'overview');
  });

  it('finds an account and pages its statement past 100 entries', async () => {
    await open('accounts', '/dashboard/accounts');
    await page.getByLabel('Search accounts').fill('browser-main');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=browser-main/);
    await settled(page);
    const rows = page.getByRole('region', { name: 'Accounts' }).locator('tbody tr');
    assert.equal(await rows.count(), 1);
    await rows.first().getByRole('link', { name: main.AccountRef }).click();

    await page.getByRole('heading', { name: `Account ${main.AccountRef}` }).waitFor();
    pagesSeen.set('account', `/dashboard/accounts/${main.AccountRef}`);
    await settled(page);
    assert.equal(await page.getByTestId('account-available').innerText(), `₦${(990 * PAYMENTS).toLocaleString('en-US')}.00`);
    const statement = page.getByRole('region', { name: 'Statement entries' }).locator('tbody tr');
    assert.equal(await statement.count(), 50);
    assert.match(await statement.first().innerText(), /Payment received — TOLU ADEWALE[\s\S]*confirmed[\s\S]*₦990\.00[\s\S]*₦990\.00/);
    const pager = page.getByRole('navigation', { name: 'Statement pages' });
    for (const expected of [2, 3]) {
      await pager.getByRole('button', { name: 'Next →' }).click();
      await pager.getByText(`Page ${expected}`).waitFor();
      await settled(page);
    }
    assert.equal(await statement.count(), PAYMENTS - 100);
    // The 101st entry carries the running balance of 101 payments.
    assert.match(await statement.first().innerText(), /₦99,990\.00$/);
    assert.ok(await pager.getByRole('button', { name: 'Next →' }).isDisabled());
    await pager.getByRole('button', { name: '← Previous' }).click();
    await pager.getByText('Page 2').waitFor();
    await settled(page);
    assert.equal(await statement.count(), 50);
    await assertAccessible(page, 'account');
    const csv = await context.request.get(`/auth/accounts/${main.AccountRef}/statement.csv`);
    assert.equal(csv.status(), 200);
    const exported = (await csv.text()).trimEnd().split('\r\n');
    assert.equal(exported.length, PAYMENTS + 1);
    assert.match(exported[1]!, new RegExp(`,payment,credit,confirmed,${NET_PER_PAYMENT},10\\.00,${NET_PER_PAYMENT},`));
  });

  it('shows an account in deficit plainly: counted on the overview, listed, flagged on its page, nothing to settle', async () => {
    await open('overview', '/dashboard');
    await page.locator('.attention').getByRole('link', { name: 'Accounts in deficit' }).click();
    await page.waitForURL(/\/dashboard\/accounts\?deficit=1/);
    pagesSeen.set('accounts-in-deficit', '/dashboard/accounts?deficit=1');
    await settled(page);
    const rows = page.getByRole('region', { name: 'Accounts in deficit' }).locator('tbody tr');
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), new RegExp(`${inDeficit.AccountRef}[\\s\\S]*${DEFICIT.ledger.replace(/[.$]/g, '\\$&')}`));
    await assertAccessible(page, 'accounts-in-deficit');
    await rows.first().getByRole('link', { name: inDeficit.AccountRef }).click();

    await page.getByRole('heading', { name: `Account ${inDeficit.AccountRef}` }).waitFor();
    pagesSeen.set('account-in-deficit', `/dashboard/accounts/${inDeficit.AccountRef}`);
    await settled(page);
    assert.match(
      await page.getByTestId('deficit-notice').innerText(),
      /^In deficit since .+: the ledger balance is below zero .* Settlements from this account are refused/,
    );
    assert.equal(await page.getByTestId('account-ledger').innerText(), DEFICIT.ledger);
    assert.match(await page.getByRole('region', { name: 'Statement entries' }).innerText(), /Reversal — provider did not confirm/);
    await assertAccessible(page, 'account-in-deficit');

    await page.getByRole('link', { name: 'New settlement' }).click();
    await page.getByRole('heading', { name: 'New settlement' }).waitFor();
    await settled(page);
    assert.equal(await page.getByTestId('settleable').innerText(), '₦0.00');
    await page.getByText('This account is in deficit: a settlement from it is refused').waitFor();

    // The healthy account says nothing of a deficit.
    await open('account', `/dashboard/accounts/${main.AccountRef}`);
    assert.equal(await page.getByTestId('deficit-notice').count(), 0);
  });

  it('approves a KYC review, confirmed in a dialog, and the queue empties', async () => {
    await open('kyc-reviews', '/dashboard/kyc-reviews');
    const row = page.getByRole('row', { name: new RegExp(kycCustomer.name) });
    assert.match(await row.innerText(), /identity verification found no match/);
    await row.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: `Approve ${kycCustomer.name}?` });
    await dialog.waitFor();
    await assertAccessible(page, 'kyc-reviews with the confirmation dialog');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(`${kycCustomer.name}: KYC approved.`).waitFor();
    await page.getByText('Nothing to review.').waitFor();

    await open('customer', `/dashboard/customers/${kycCustomer.id}`);
    assert.match(await page.locator('.summary').first().innerText(), /approved\s+tier 2/);
    const history = await page.getByRole('region', { name: 'Operator actions on the customer' }).innerText();
    assert.match(history, new RegExp(`${admin.email.replace('+', '\\+')}\\s+kyc approved`));
  });

  it('shows held money with the limit behind it, and releases it with a reason in a dialog', async () => {
    const held = await provision(sys, tenant.apiKey, { externalRef: 'browser-held', name: 'Ngozi Balogun' });
    await pay(held.AccountRef, 70_050);
    await eventually(async () => (await balanceOf(held.AccountRef)).heldBalance === '20000.00', { what: 'the held part of the payment' });

    await open('held-money', '/dashboard/held-money');
    const row = page.getByRole('row', { name: /Ngozi Balogun/ });
    assert.match(await row.innerText(), /₦20,000\.00[\s\S]*single credit ₦50,000\.00/);
    await row.getByRole('button', { name: 'Release' }).click();
    const dialog = page.getByRole('dialog', { name: 'Release ₦20,000.00 held for Ngozi Balogun?' });
    await dialog.waitFor();
    await assertAccessible(page, 'held-money with the release dialog');
    await dialog.getByLabel('Why (recorded in the audit log)').fill('Customer sent a payslip, ticket 5120');
    await dialog.getByRole('button', { name: 'Release' }).click();
    await page.getByText('Ngozi Balogun: ₦20,000.00 released.').waitFor();
    // The notice comes with the answer; the queue reloads after it.
    await page.getByRole('row', { name: /Ngozi Balogun/ }).waitFor({ state: 'detached' });
    assert.equal((await balanceOf(held.AccountRef)).heldBalance, '0.00');
  });

  it('returns held money to the sender after showing the provider’s name for the payer’s account, which the operator confirms when it is not the payer’s', async () => {
    const payerAccount = '0123456789';
    const name = accountHolderName(payerAccount);
    const held = await provision(sys, tenant.apiKey, { externalRef: 'browser-returned', name: 'Emeka Nwosu' });
    await pay(held.AccountRef, 70_050, { senderAccountNumber: payerAccount });
    await eventually(
      async () => {
        const balance = await balanceOf(held.AccountRef);
        return balance.heldBalance === '20000.00' && balance.pendingCredits === '0.00';
      },
      { what: 'the held part of the payment, confirmed' },
    );

    await open('held-money', '/dashboard/held-money');
    await page
      .getByRole('row', { name: /Emeka Nwosu/ })
      .getByRole('button', { name: 'Return to sender' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Return ₦20,000.00 to TOLU ADEWALE?' });
    await dialog.getByTestId('return-account-name').getByText(name, { exact: true }).waitFor();
    assert.match(await dialog.innerText(), /The payment names the payer TOLU ADEWALE: the names differ/);
    const returnButton = dialog.getByRole('button', { name: 'Return to sender' });
    assert.ok(await returnButton.isDisabled(), 'no return before the operator confirms the name');
    await assertAccessible(page, 'held-money with the return dialog');
    await dialog.getByLabel('Why (recorded in the audit log)').fill('Payer asked for it back, ticket 5121');
    await dialog.getByLabel(`Pay ${name} (recorded in the audit log)`).check();
    await returnButton.click();
    await page.getByText(new RegExp(`^Emeka Nwosu: ₦20,000\\.00 being returned to ${name} \\(settlement mtx_`)).waitFor();
    await page.getByRole('row', { name: /Emeka Nwosu/ }).waitFor({ state: 'detached' });
    const audit = await db('audit_log')
      .where({ action: 'kyc_hold.returned' })
      .whereRaw("detail->>'accountRef' = ?", [held.AccountRef])
      .first('actor', 'detail');
    assert.deepEqual(
      [audit.actor, audit.detail.senderName, audit.detail.accountName, audit.detail.nameCheck],
      [admin.email, 'TOLU ADEWALE', name, 'operator_confirmed'],
    );
  });

  it('shows the limits of each KYC tier beside the held money, and who set them', async () => {
    await open('held-money', '/dashboard/held-money');
    const table = page.getByRole('region', { name: 'Limits of each tier' });
    const rows = await table.getByRole('row').allInnerTexts();
    assert.deepEqual(
      rows.slice(1).map((row) => row.split('\t').map((cell) => cell.trim())),
      [
        ['1', '₦50,000.00', '₦300,000.00', '₦50,000.00', 'the platform'],
        ['2', '₦100,000.00', '₦500,000.00', '₦200,000.00', 'the platform'],
        ['3', 'no limit', 'no limit', '₦5,000,000.00', 'the platform'],
      ],
    );
  });

  it('assigns a misdirected payment to an account', async () => {
    await open('misdirected', '/dashboard/misdirected');
    const row = page.getByRole('row', { name: /MISDIRECTED SENDER/ });
    await row.getByRole('button', { name: 'Assign…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Assign this payment to an account' });
    await dialog.getByLabel('AccountRef to credit').fill(main.AccountRef);
    await dialog.getByRole('button', { name: 'Assign and credit' }).click();
    await page.getByText(`Payment of ₦2,500.00 credited to ${main.AccountRef}.`).waitFor();
    await row.getByRole('link', { name: main.AccountRef }).waitFor();
    // The ledger, not only the page: exactly one payment credit for the provider's transaction, on that account.
    const credits = await db('ledger_entries')
      .where({ provider_txn_ref: misdirectedTransactionId, direction: 'credit', kind: 'payment' })
      .select('account_id');
    assert.deepEqual(credits, [{ account_id: main.ID }]);
  });

  it('replays a dead letter and sees it delivered', async () => {
    const before = receiver.calls.length;
    await open('webhooks-dead-letters', '/dashboard/webhooks?tab=dead-letters');
    const rows = page.getByRole('region', { name: 'Deliveries' }).locator('tbody tr');
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /dead letter/);
    await rows.first().getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Replay selected (1)' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replay selected (1)' }).click();
    await page.getByText("1 dead letter replayed to the account's current callback URL.").waitFor();
    // The page refreshes itself until the replay's own delivery has succeeded.
    await rows.first().getByText('replay succeeded').waitFor();
    assert.ok(receiver.calls.length > before, 'the receiver got the replayed event');
    deliveryId = (await rows.first().getByRole('link').first().getAttribute('href'))!.split('/').pop()!;
    pagesSeen.set('delivery', `/dashboard/webhooks/deliveries/${deliveryId}`);
  });

  it('initiates a settlement after the bank lookup, then watches it reach success', async () => {
    await open('account-for-settlement', `/dashboard/accounts/${main.AccountRef}`);
    await page.getByRole('link', { name: 'New settlement' }).click();
    await page.getByRole('heading', { name: 'New settlement' }).waitFor();
    pagesSeen.set('new-settlement', `/dashboard/accounts/${main.AccountRef}/settle`);
    await settled(page);
    await page.getByLabel('Amount (naira)').fill('1500.50');
    await page.getByLabel('Bank').selectOption(DESTINATION.bankCode);
    await page.getByLabel('Account number').fill(DESTINATION.accountNumber);
    await page.getByLabel('Narration (optional)').fill('Browser payout');
    assert.equal(await page.getByRole('button', { name: /^Pay / }).count(), 0, 'no pay button before the lookup');
    await page.getByRole('button', { name: 'Look up the account name' }).click();
    const name = accountHolderName(DESTINATION.accountNumber);
    assert.equal(await page.getByTestId('lookup-name').innerText(), name);
    await assertAccessible(page, 'new-settlement with the looked-up name');
    await page.getByRole('button', { name: `Pay ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Pay this settlement?' });
    assert.match(await dialog.innerText(), new RegExp(`Pay ₦1,500\\.50 from ${main.AccountRef} to ${name}`));
    await dialog.getByRole('button', { name: 'Pay now' }).click();

    await page.waitForURL(/\/dashboard\/settlements\/mtx_/);
    settlementRef = page.url().split('/').pop()!;
    pagesSeen.set('settlement', `/dashboard/settlements/${settlementRef}`);
    await page.getByTestId('settlement-status').getByText('success').waitFor();
    const attempts = page.getByRole('region', { name: 'Attempts' }).locator('tbody tr');
    assert.match(await attempts.first().innerText(), new RegExp(`${settlementRef}-1[\\s\\S]*success`));
    const timeline = await page.locator('.timeline').innerText();
    assert.match(timeline, /pending[\s\S]*success/);
    // The workflow's id for the platform operator, but no link into the Temporal UI (every tenant's workflows).
    await page.getByText(`settlement:${settlementRef}`, { exact: true }).waitFor();
    assert.equal(await page.locator(`a[href^="${sys.env.TEMPORAL_UI_URL ?? 'http://localhost:8233'}"]`).count(), 0);
    assert.equal((await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${settlementRef}`)).body.payouts, 1, 'paid out exactly once');
  });

  it('saves a beneficiary showing the name the bank gives it, pays it from the settle form, and deletes it', async () => {
    const accountNumber = '0246810001';
    const name = accountHolderName(accountNumber);
    await open('beneficiaries', '/dashboard/beneficiaries');
    await page.getByLabel('Bank').selectOption('044');
    await page.getByLabel('Account number').fill(accountNumber);
    await page.getByLabel('Nickname (optional)').fill('Browser supplier');
    await page.getByRole('button', { name: 'Look up and save' }).click();
    await page.getByText(`Saved ${name} (${accountNumber}, Access Bank).`).waitFor();
    const row = page.getByTestId('beneficiary-row').filter({ hasText: accountNumber });
    assert.match(await row.innerText(), new RegExp(`${name}[\\s\\S]*Browser supplier`));

    await page.goto(`${sys.apiUrl}/dashboard/accounts/${main.AccountRef}/settle`);
    await page.getByRole('heading', { name: 'New settlement' }).waitFor();
    await settled(page);
    await page.getByLabel('Amount (naira)').fill('20.00');
    await page.getByLabel('Pay to').selectOption({ label: `${name} (Browser supplier), ${accountNumber} Access Bank` });
    assert.equal(await page.getByLabel('Account number').count(), 0, 'a beneficiary needs no account number');
    await page.getByRole('button', { name: 'Review the payment' }).click();
    assert.equal(await page.getByTestId('lookup-name').innerText(), name);
    await page.getByRole('button', { name: `Pay ${name}` }).click();
    await page.getByRole('dialog', { name: 'Pay this settlement?' }).getByRole('button', { name: 'Pay now' }).click();
    await page.waitForURL(/\/dashboard\/settlements\/mtx_/);
    const ref = page.url().split('/').pop()!;
    await page.getByTestId('settlement-status').getByText('success').waitFor();
    const paid = (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;
    assert.deepEqual([paid.payouts, paid.submissions[0].accountNumber], [1, accountNumber]);

    await page.goto(`${sys.apiUrl}/dashboard/beneficiaries`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: `Delete ${name}?` })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText(`Deleted ${name}.`).waitFor();
    // The list reloads after the notice: the row goes once the reloaded list arrives.
    await page.getByTestId('beneficiary-row').filter({ hasText: accountNumber }).waitFor({ state: 'detached' });
  });

  it('pays a bulk payout from a CSV file: each row previewed, the invalid one marked, then the batch followed to its end', async () => {
    await open('settlement-batches', '/dashboard/settlement-batches');
    const csv = [
      'reference,accountRef,amount,bankCode,accountNumber,narration',
      `bulk-1,${main.AccountRef},10.00,${DESTINATION.bankCode},${DESTINATION.accountNumber},"Bulk, first"`,
      `bulk-2,${main.AccountRef},abc,${DESTINATION.bankCode},${DESTINATION.accountNumber},`,
      `bulk-3,${main.AccountRef},20.00,${DESTINATION.bankCode},${DESTINATION.accountNumber},`,
    ].join('\n');
    await page.getByLabel('Payout file (CSV)').setInputFiles({ name: 'payouts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    assert.match(await page.getByTestId('preview-summary').innerText(), /2 of 3 rows can be paid now; 1 would fail/);
    const preview = await page.getByRole('region', { name: 'Preview of the rows' }).innerText();
    assert.match(preview, /bulk-2[\s\S]*invalid amount/);
    await assertAccessible(page, 'settlement-batches with a preview');
    await page.getByRole('button', { name: 'Pay 2 rows (the others fail)' }).click();

    await page.waitForURL(/\/dashboard\/settlement-batches\/[0-9a-f-]{36}$/);
    pagesSeen.set('settlement-batch', new URL(page.url()).pathname);
    await page.getByText('completed with failures').first().waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('count-success').innerText(), '2');
    assert.equal(await page.getByTestId('count-failed').innerText(), '1');
    const items = await page.getByRole('region', { name: 'Items' }).innerText();
    assert.match(items, /bulk-1[\s\S]*success[\s\S]*bulk-2[\s\S]*failed[\s\S]*invalid amount[\s\S]*bulk-3[\s\S]*success/i);
    const audited = await db('audit_log').where({ tenant_id: tenant.tenantId, action: 'settlement_batch.created' }).select('actor');
    assert.deepEqual(
      audited.map((row) => row.actor),
      [admin.email],
    );
  });

  it('shows the books: balances totalling ₦0.00, the journal paged, and a statement line opens its transaction there', async () => {
    await open('books', '/dashboard/books');
    assert.equal(await page.getByTestId('books-total').innerText(), '₦0.00');
    const balances = page.getByTestId('books-balances');
    assert.match(
      await balances.locator('[data-account="clearing"]').innerText(),
      /Clearing \(money at the provider\)\s+System\s+−₦[\d,]+\.\d{2}/,
    );
    const journal = page.getByTestId('books-journal').locator('tbody');
    assert.equal(await journal.count(), 50);
    const pager = page.getByRole('navigation', { name: 'Journal pages' });
    await pager.getByRole('button', { name: 'Next →' }).click();
    await pager.getByText('Page 2').waitFor();
    await settled(page);
    assert.equal(await journal.count(), 50);

    await open('account-for-books', `/dashboard/accounts/${main.AccountRef}`);
    await page.getByRole('region', { name: 'Statement entries' }).getByRole('link', { name: 'Transaction in Books' }).first().click();
    await page.waitForURL(/\/dashboard\/books\?transaction=/);
    const linked = new URL(page.url());
    pagesSeen.set('books-transaction', linked.pathname + linked.search);
    await page.getByText('Showing one transaction.').waitFor();
    await settled(page);
    assert.equal(await journal.count(), 1);
    assert.match(
      await journal.first().innerText(),
      new RegExp(
        `payment[\\s\\S]*${main.AccountRef}[\\s\\S]*confirmed[\\s\\S]*₦990\\.00[\\s\\S]*Clearing \\(money at the provider\\)[\\s\\S]*₦1,000\\.00[\\s\\S]*Provider fees \\(kept from payments\\)[\\s\\S]*₦10\\.00`,
      ),
    );
    await assertAccessible(page, 'books-transaction');
  });

  it('starts a reconciliation run and follows it to its findings, which the platform operator decides (CLI) and the page shows decided', async () => {
    await open('reconciliation', '/dashboard/reconciliation');
    await page.getByText('No reconciliation runs yet.').waitFor();
    await page.getByRole('button', { name: 'Start a run…' }).click();
    const start = page.getByRole('dialog', { name: 'Reconcile your accounts now?' });
    assert.match(
      await start.innerText(),
      /Compares every account of Browser Tenant Ltd with the provider's records over the usual look-back window/,
    );
    await start.getByRole('button', { name: 'Start the run' }).click();
    await page.waitForURL(/\/dashboard\/reconciliation\/runs\/[0-9a-f-]{36}$/);
    runId = page.url().split('/').pop()!;
    pagesSeen.set('reconciliation-run', `/dashboard/reconciliation/runs/${runId}`);
    await page.getByTestId('run-status').getByText('succeeded').waitFor();
    await settled(page);
    assert.match(await page.getByTestId('run-status').innerText(), /succeeded\s+alert/);
    assert.deepEqual(
      [await page.getByTestId('run-repaired').innerText(), await page.getByTestId('run-reported').innerText()],
      ['0', String(TAKEN_BACK.length)],
    );
    assert.match(await page.locator('.summary').first().innerText(), new RegExp(`Started by\\s+${admin.email.replace('+', '\\+')}`));
    const findings = page.getByRole('region', { name: 'What the run found' }).locator('tbody tr');
    assert.equal(await findings.count(), TAKEN_BACK.length);
    for (const payment of TAKEN_BACK) {
      const amount = `₦${payment.sent.toLocaleString('en-US')}.00`;
      const row = findings.filter({ hasText: `provider: ${amount}` });
      assert.match(
        await row.innerText(),
        new RegExp(
          `^[^\\n]+\\s+alert\\s+A confirmed credit the provider shows failed or refunded[^\\n]*\\s+provider: ${amount} REFUND · ledger: ${amount} confirmed\\s+${reconciled.AccountRef}[\\s\\S]*open`,
        ),
      );
    }

    // Money the platform already paid out against these credits: the tenant's admin reads them and cannot act on them.
    assert.equal(await findings.getByRole('button').count(), 0, 'no Resolve or Compensate on a finding the platform operator decides');
    assert.equal(await findings.filter({ hasText: 'Decided by the platform operator' }).count(), TAKEN_BACK.length);

    // The platform operator resolves the 2,000.00 credit with a note and compensates the 5,000.00 one, at the CLI.
    resolvedExceptionId = (await findings.filter({ hasText: 'provider: ₦2,010.00' }).getAttribute('data-exception'))!;
    const compensatedExceptionId = (await findings.filter({ hasText: 'provider: ₦5,025.00' }).getAttribute('data-exception'))!;
    await sys.cli('reconcile:resolve', '--exception', resolvedExceptionId, '--tenant', tenant.tenantId, '--note', RESOLUTION_NOTE);
    await sys.cli('reconcile:compensate', '--exception', compensatedExceptionId, '--tenant', tenant.tenantId, '--note', COMPENSATION_NOTE);

    // The overview counts the one still open and links to it.
    await open('overview', '/dashboard');
    assert.match(await page.locator('.attention').innerText(), /\b1\s+Reconciliation exceptions open/);
    await page.locator('.attention').getByRole('link', { name: 'Reconciliation exceptions open' }).click();
    await page.waitForURL(/\/dashboard\/reconciliation\/exceptions\?status=open$/);
    pagesSeen.set('reconciliation-exceptions', '/dashboard/reconciliation/exceptions?status=open');
    await settled(page);
    const openRows = page.getByRole('region', { name: 'Reconciliation exceptions' }).locator('tbody tr');
    assert.equal(await openRows.count(), 1, 'one exception is left open');
    assert.match(await openRows.first().innerText(), /provider: ₦3,010\.00[\s\S]*Decided by the platform operator/);

    await page.getByLabel('Status').selectOption('resolved');
    await page.waitForURL(/status=resolved/);
    await settled(page);
    const closed = await page.getByRole('region', { name: 'Reconciliation exceptions' }).innerText();
    assert.match(closed, new RegExp(`compensating debit posted by the platform operator \\(CLI\\)[\\s\\S]*“${COMPENSATION_NOTE}”`));
    assert.match(closed, new RegExp(`resolved with a note by the platform operator \\(CLI\\)[\\s\\S]*“${RESOLUTION_NOTE}”`));

    await open('reconciliation-exception', `/dashboard/reconciliation/exceptions/${resolvedExceptionId}`);
    assert.equal(await page.getByTestId('exception-status').innerText(), 'resolved');
    assert.equal(await page.getByTestId('exception-note').innerText(), RESOLUTION_NOTE);
    assert.equal(await page.getByRole('region', { name: 'Runs that met it' }).locator('tbody tr').count(), 1);

    // The compensating debit is on the account's statement, as an adjustment.
    await open('account-reconciled', `/dashboard/accounts/${reconciled.AccountRef}`);
    assert.equal(await page.getByTestId('account-ledger').innerText(), '₦5,000.00');
    assert.match(
      await page.getByRole('region', { name: 'Statement entries' }).innerText(),
      /Adjustment — compensation: the provider reports this payment REFUND/,
    );
    pagesSeen.delete('account-reconciled');
  });

  it('shows a viewer the reconciliation pages read-only', async () => {
    const viewer = await user(tenant.tenantId, 'viewer');
    const viewerContext = await newContext(browser, sys.apiUrl);
    try {
      const viewerPage = await viewerContext.newPage();
      await signIn(viewerPage, viewer);
      await viewerPage.goto('/dashboard/reconciliation');
      await settled(viewerPage);
      assert.equal(await viewerPage.getByRole('region', { name: 'Reconciliation runs' }).locator('tbody tr').count(), 1);
      assert.equal(await viewerPage.getByRole('button', { name: 'Start a run…' }).count(), 0);
      await viewerPage.goto('/dashboard/reconciliation/exceptions');
      await settled(viewerPage);
      const rows = viewerPage.getByRole('region', { name: 'Reconciliation exceptions' }).locator('tbody tr');
      assert.equal(await rows.count(), 1);
      assert.equal(await rows.getByRole('button').count(), 0, 'no Resolve or Compensate for a viewer');
    } finally {
      await viewerContext.close();
    }
  });

  it('creates an API key shown once, read-only unless more is ticked, which works until it is revoked on the page', async () => {
    await open('api-keys', '/dashboard/api-keys');
    await page.getByLabel('Name').fill('Reporting');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Create API key' }).click();
    const key = await page.getByTestId('secret-value').innerText();
    assert.match(key, /^sk_/);
    assert.equal((await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: key })).status, 200);
    assert.equal((await call(sys.apiUrl, 'POST', '/v1/accounts', { apiKey: key, body: {} })).body.requiredScope, 'accounts:write');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByTestId('secret-value').count(), 0);
    assert.ok(!(await page.content()).includes(key), 'the key is not on the page any more');
    const row = page.locator(`tr[data-prefix="${key.slice(0, 11)}"]`);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText(/^revoked /).waitFor();
    assert.equal((await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: key })).status, 401);
  });

  it('adds a webhook endpoint whose secret is shown once, disables and re-enables it, deletes it, and shows one disabled for failing with why and since', async () => {
    const endpointsOfTenant = async () =>
      (await call(sys.apiUrl, 'GET', '/v1/webhook-endpoints', { apiKey: tenant.apiKey })).body.endpoints;
    await open('webhook-endpoints', '/dashboard/webhook-endpoints');
    await page.getByText('No webhook endpoints yet.').waitFor();
    const form = page.getByRole('form', { name: 'Add a webhook endpoint' });
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Description').fill('Identity checks');
    await form.getByRole('checkbox', { name: /^All event types/ }).uncheck();
    await form.getByRole('checkbox', { name: /^kyc\.rejected/ }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByTestId('secret-value').innerText();
    assert.match(secret, /^whsec_/);
    const [created] = await endpointsOfTenant();
    assert.deepEqual(
      [created.URL, created.Description, created.EventTypes, created.Enabled],
      [receiver.url, 'Identity checks', ['kyc.rejected'], true],
    );

    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await nav.getByRole('link', { name: 'Webhook endpoints' }).click();
    await settled(page);
    const row = page.locator(`tr[data-endpoint="${created.ID}"]`);
    await row.waitFor();
    assert.equal(await page.getByTestId('secret-value').count(), 0);
    assert.ok(!(await page.content()).includes(secret), 'the secret is not on the page after leaving it');

    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await row.getByText('disabled', { exact: true }).waitFor();
    assert.equal((await endpointsOfTenant())[0].Enabled, false);
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByText('enabled', { exact: true }).waitFor();
    assert.equal((await endpointsOfTenant())[0].Enabled, true);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
    assert.deepEqual(await endpointsOfTenant(), []);

    // One the service disabled after days of failed deliveries (as its health check records it).
    const failing = await call(sys.apiUrl, 'POST', '/v1/webhook-endpoints', {
      apiKey: tenant.apiKey,
      body: { url: receiver.url, eventTypes: ['kyc.rejected'] },
    });
    assert.equal(failing.status, 201, failing.text);
    const failingSince = new Date('2026-11-20T09:00:00Z');
    await db('webhook_endpoints')
      .where({ id: failing.body.ID })
      .update({
        enabled: false,
        failing_since: failingSince,
        last_error: 'HTTP 500',
        disabled_reason: `every delivery failed since ${failingSince.toISOString()} (last: HTTP 500)`,
      });
    await open('webhook-endpoints', '/dashboard/webhook-endpoints');
    const disabled = await page.locator(`tr[data-endpoint="${failing.body.ID}"]`).innerText();
    assert.match(
      disabled,
      /Disabled automatically, failing since 20 Nov 2026, 10:00:00: every delivery failed since 2026-11-20T09:00:00.000Z \(last: HTTP 500\)/,
    );
  });

  it('lists every action in the audit log with who did it', async () => {
    await open('audit-log', '/dashboard/audit-log');
    const log = await page.getByRole('region', { name: 'Audit log' }).innerText();
    for (const action of [
      'api key revoked',
      'api key created',
      'reconciliation run requested',
      'settlement initiated',
      'webhook replayed',
      'misdirected assigned',
      'kyc approved',
      'session signed in',
    ]) {
      assert.match(log, new RegExp(`${admin.email.replace('+', '\\+')}\\s+${action}`), action);
    }
  });

  it('computes a fee quote', async () => {
    await open('fees', '/dashboard/fees');
    await page.getByLabel('Amount to receive (naira)').fill('4990');
    await page.getByRole('button', { name: 'Calculate' }).click();
    assert.equal(await page.getByTestId('send-amount').innerText(), '₦5,015.00');
  });

  it("keeps tenant B's operator out of tenant A's account, even by URL", async () => {
    const other = await cliTenant(sys, 'Other Tenant');
    const operatorB = await user(other.tenantId, 'operator');
    const contextB = await newContext(browser, sys.apiUrl);
    try {
      const pageB = await contextB.newPage();
      await signIn(pageB, operatorB);
      await pageB.goto(`/dashboard/accounts/${main.AccountRef}`);
      await pageB.getByText('Account not found.').waitFor();
      assert.equal(await pageB.getByText(`₦${(990 * PAYMENTS).toLocaleString('en-US')}`).count(), 0);
      await pageB.goto(`/dashboard/settlements/${settlementRef}`);
      await pageB.getByText('transfer not found').waitFor();
      await pageB.goto(`/dashboard/accounts?q=${main.AccountRef}`);
      await pageB.getByText(`No account matches “${main.AccountRef}”.`).waitFor();
      // Tenant A's deficit is not tenant B's: B's list is empty (its empty state).
      await pageB.goto('/dashboard/accounts?deficit=1');
      await pageB.getByText('No account is in deficit.').waitFor();
      // Nor tenant A's reconciliation run or its findings.
      await pageB.goto(`/dashboard/reconciliation/runs/${runId}`);
      await pageB.getByText('Reconciliation run not found.').waitFor();
      await pageB.goto(`/dashboard/reconciliation/exceptions/${resolvedExceptionId}`);
      await pageB.getByText('Reconciliation exception not found.').waitFor();
      await pageB.goto('/dashboard/reconciliation/exceptions?status=all');
      await pageB.getByText('No exceptions match these filters.').waitFor();
      assert.equal(await pageB.getByRole('link', { name: 'API keys' }).count(), 0, 'an operator is not offered admin pages');
    } finally {
      await contextB.close();
    }
  });

  it('issues a password reset on the Users page that the user redeems signed out, then changes their password on the Password page', async () => {
    const member = await user(tenant.tenantId, 'viewer');
    await page.goto('/dashboard/users');
    await settled(page);
    const row = page.locator('tr', { hasText: member.email });
    await row.getByRole('button', { name: 'Reset password' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reset password' }).click();
    const token = await page.getByTestId('secret-value').innerText();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.ok(!(await page.content()).includes(token), 'the token is not on the page any more');

    const memberContext = await newContext(browser, sys.apiUrl);
    try {
      const memberPage = await memberContext.newPage();
      await memberPage.goto('/dashboard');
      await memberPage.getByRole('link', { name: 'Set a new password' }).click();
      await memberPage.getByRole('heading', { name: 'Set a new password' }).waitFor();
      await memberPage.getByLabel('Reset token').fill(token);
      await memberPage.locator('input[name=new-password]').fill('a password only I know');
      await memberPage.getByRole('button', { name: 'Set password' }).click();
      await memberPage.getByText('Your password is set. Sign in with it.').waitFor();

      await signIn(memberPage, { email: member.email, password: 'a password only I know' });
      await memberPage.getByRole('link', { name: 'Password', exact: true }).click();
      await memberPage.getByRole('heading', { name: 'Password' }).waitFor();
      await memberPage.getByLabel('Current password').fill('a password only I know');
      await memberPage.locator('input[name=new-password]').fill('another password of mine');
      await memberPage.getByLabel('New password again').fill('another password of mine');
      await memberPage.getByRole('button', { name: 'Change password' }).click();
      await memberPage.getByText('Password changed. 0 other session(s) ended.').waitFor();
    } finally {
      await memberContext.close();
    }
    assert.equal(
      (await call(sys.apiUrl, 'POST', '/auth/login', { body: { email: member.email, password: 'another password of mine' } })).status,
      200,
    );
    assert.equal((await call(sys.apiUrl, 'POST', '/auth/login', { body: { email: member.email, password: member.password } })).status, 401);
  });

  it('renders every page at desktop and phone width, with no serious accessibility violation and nothing wider than a phone', async function () {
    // Two passes over every page (axe on each at desktop width): its time grows with the dashboard, not a hang.
    this.timeout(6 * 60_000);
    pagesSeen.set('settlements', '/dashboard/settlements');
    pagesSeen.set('customers', '/dashboard/customers');
    pagesSeen.set('webhooks', '/dashboard/webhooks');
    pagesSeen.set('webhooks-errors', '/dashboard/webhooks?tab=errors');
    pagesSeen.set('webhooks-secret', '/dashboard/webhooks?tab=secret');
    pagesSeen.set('users', '/dashboard/users');
    pagesSeen.set('webhook-endpoints', '/dashboard/webhook-endpoints');
    pagesSeen.set('approvals', '/dashboard/approvals');
    pagesSeen.set('scheduled-payouts', '/dashboard/scheduled-payouts');
    pagesSeen.set('transfers', '/dashboard/transfers');
    pagesSeen.set('velocity-rules', '/dashboard/velocity-rules');
    pagesSeen.set('two-factor', '/dashboard/two-factor');
    pagesSeen.set('not-found', '/dashboard/nothing-here');
    pagesSeen.delete('account-for-settlement');
    pagesSeen.delete('account-for-books');
    const phone = await newContext(browser, sys.apiUrl, PHONE);
    try {
      const phonePage = await phone.newPage();
      const phoneProblems = watchForErrors(phonePage);
      await signIn(phonePage, admin);
      for (const [target, width] of [
        [page, 'desktop'],
        [phonePage, 'phone'],
      ] as const) {
        const passStarted = Date.now();
        for (const [name, url] of pagesSeen) {
          await target.goto(url);
          await settled(target);
          // The markup is the same at both widths (only CSS differs), so axe runs once per page; the
          // phone pass checks what the width changes: nothing may scroll the page sideways.
          if (width === 'desktop') await assertAccessible(target, name);
          if (width === 'phone') {
            const overflow = await horizontalOverflow(target);
            assert.ok(overflow <= 1, `${name} scrolls sideways on a phone by ${overflow}px`);
          }
          await screenshot(target, name, width);
        }
        console.log(`      ${width}: ${pagesSeen.size} pages checked in ${((Date.now() - passStarted) / 1000).toFixed(1)} s`);
      }
      await phonePage.getByRole('button', { name: 'Menu' }).click();
      await phonePage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
      await phonePage.getByRole('heading', { name: 'Accounts' }).waitFor();
      assert.deepEqual(phoneProblems, []);
    } finally {
      await phone.close();
    }
    assert.deepEqual(problems, [], 'no console error, CSP refusal or failed request on any page');
    console.log(`      ${pagesSeen.size + 1} pages at ${DESKTOP.width} and ${PHONE.width} px wide: screenshots in ${artifactsDir()}`);
  });

  it('signs out, and a signed-out visit to any page shows sign-in again', async () => {
    await open('overview', '/dashboard');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('You are signed out.').waitFor();
    await page.goto('/dashboard/accounts');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const response = await context.request.get('/auth/session');
    assert.equal(response.status(), 401);
  });
});
