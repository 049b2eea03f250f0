import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { balanceSweepScheduleId } from '../../src/contracts/balance-sweep.contract';
import { createKnex, type Db } from '../../src/db';
import { createTemporalClient } from '../../src/temporal/client';
import { cliTenant, provision, type E2eTenant } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import type { RunningSystem } from '../helpers/processes';
import { addOperator, limitToTheRunningTest, newContext, settled, signIn, watchForErrors, type Operator } from './browser';
import { browserSystem, sharedChromium } from './shared';

/** What the dashboard shows a time as (its `when`): en-GB, medium date and time, Lagos. */
const lagosTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'Africa/Lagos' });
const HOUR_MS = 3_600_000;
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The account page's tools beyond the statement, in a real browser against the real processes: a dynamic
 * account's terms and each payment's judgement, the Transfer form, the split rule and the balance sweep.
 * Each step is checked on the page and then in what the API and the database hold.
 */
describe('account page in a browser: dynamic terms, transfers, split rules and sweeps', function () {
  let sys: RunningSystem;
  let db: Db;
  let temporal: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let tenant: E2eTenant;
  let admin: Operator;
  /** Accounts given a sweep: their Schedules outlive the run on the shared dev server unless deleted. */
  const swept: string[] = [];

  const v1 = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    call(sys.apiUrl, method, path, { apiKey: tenant.apiKey, ...(body === undefined ? {} : { body }) });

  /** A payment at the sandbox provider (its webhook follows); answers the provider's transaction id. */
  async function pay(accountRef: string, amount: number, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef, amount, senderName: 'TOLU ADEWALE', narration: 'Invoice', ...extra },
    });
    assert.equal(response.status, 200, response.text);
    return response.body.transactionId;
  }

  /** The payment's statement line as the API gives it, once its credit is posted (and confirmed, when asked). */
  function paymentLine(accountRef: string, transactionId: string, confirmed = true): Promise<Record<string, string>> {
    return eventually(
      async () => {
        const { lines } = (await v1('GET', `/v1/accounts/${accountRef}/statement?limit=200`)).body;
        const entry = lines
          .map((line: { entry: Record<string, string> }) => line.entry)
          .find((line: Record<string, string>) => line.ProviderTxnRef === transactionId && line.Kind === 'payment');
        return entry && (!confirmed || entry.Status === 'confirmed') ? entry : null;
      },
      { what: `the payment ${transactionId}${confirmed ? ' confirmed' : ''}` },
    );
  }

  const accountOf = async (accountRef: string) => (await v1('GET', `/v1/accounts/${accountRef}`)).body;
  const balanceOf = async (accountRef: string) => (await v1('GET', `/v1/accounts/${accountRef}/balance`)).body;

  async function open(url: string): Promise<void> {
    await page.goto(url);
    await settled(page);
  }

  /** A value of the account's summary (its first definition list), by its term. */
  const term = (name: string): Promise<string> =>
    page
      .locator('dl.summary')
      .first()
      .locator('div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
      .locator('dd')
      .innerText();

  const statementRow = (hasText: string): Locator =>
    page.getByRole('region', { name: 'Statement entries' }).locator('tbody tr').filter({ hasText });

  /**
   * Nothing broke on the page: no page error, failed request or console error, except the browser's own
   * console line for each refusal (a 400) the test provoked on purpose.
   */
  function assertNoPageProblems(): void {
    const seen = problems.splice(0);
    assert.deepEqual(
      seen.filter((problem) => !/status of 400/.test(problem)),
      [],
      'no console error, CSP refusal or failed request',
    );
  }

  const auditRows = (action: string) =>
    db('audit_log').where({ tenant_id: tenant.tenantId, action }).orderBy('id').select('actor', 'target_id', 'detail');

  before(async function () {
    this.timeout(180_000);
    sys = await browserSystem();
    db = createKnex({ DATABASE_URL: sys.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    temporal = createTemporalClient({
      TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!,
      TEMPORAL_NAMESPACE: sys.env.TEMPORAL_NAMESPACE ?? 'default',
    });
    tenant = await cliTenant(sys, 'Account Tools Ltd');
    admin = await addOperator(db, sys.env, tenant.tenantId, 'admin');
    browser = await sharedChromium();
    context = await newContext(browser, sys.apiUrl);
    page = await context.newPage();
    problems = watchForErrors(page);
    await signIn(page, admin);
  });

  beforeEach(() => {
    if (context) limitToTheRunningTest(context);
  });

  after(async function () {
    this.timeout(60_000);
    await context?.close();
    for (const accountId of swept)
      await temporal.schedule
        .getHandle(balanceSweepScheduleId(accountId))
        .delete()
        .catch(() => undefined);
    await temporal?.connection.close();
    await db?.destroy();
  });

  it("shows a dynamic account's terms and status, and each payment's judgement on its statement line", async () => {
    // A whole hour about ten days ahead, so the page's rendering of it can be written out exactly.
    const expiresAt = new Date(Math.ceil((Date.now() + 240 * HOUR_MS) / HOUR_MS) * HOUR_MS);
    const flagging = await provision(sys, tenant.apiKey, {
      externalRef: 'dynamic-flag',
      name: 'Tunde Bakare',
      expectedAmount: '5000.00',
      amountPolicy: 'at_least',
      onMismatch: 'credit_and_flag',
      expiresAt: expiresAt.toISOString(),
    });
    await open(`/dashboard/accounts/${flagging.AccountRef}`);
    assert.deepEqual(
      [await term('Status'), await term('Expires'), await term('Amount policy'), await term('Expected amount'), await term('On mismatch')],
      ['active', lagosTime.format(expiresAt), 'at least', '₦5,000.00', 'credit and flag'],
    );

    // The judgement is of the gross amount (what the payer sent), not the credit net of the provider's fee.
    const under = await pay(flagging.AccountRef, 3000);
    const over = await pay(flagging.AccountRef, 6000);
    const [underLine, overLine] = [await paymentLine(flagging.AccountRef, under), await paymentLine(flagging.AccountRef, over)];
    assert.deepEqual(
      [underLine, overLine].map((line) => [line.Amount, line.ExpectedAmount, line.AmountReceived, line.Variance, line.MismatchAction]),
      [
        ['2990.00', '5000.00', '3000.00', 'under', 'flagged'],
        ['5975.00', '5000.00', '6000.00', 'over', 'none'],
      ],
    );
    // The accepted payment closes the account once confirmed.
    await eventually(async () => (await accountOf(flagging.AccountRef)).Status === 'expired', { what: 'the account closed' });
    await open(`/dashboard/accounts/${flagging.AccountRef}`);
    assert.equal(await term('Status'), 'expired');
    assert.match(await statementRow(under).innerText(), /Payment received[\s\S]*expected ₦5,000\.00, received ₦3,000\.00: under, flagged/);
    assert.match(await statementRow(under).innerText(), /₦2,990\.00/);
    assert.match(await statementRow(over).innerText(), /expected ₦5,000\.00, received ₦6,000\.00: over, accepted/);

    // An account that returns mismatches, expired by its timer: a payment of exactly the amount is still after expiry.
    const returning = await provision(sys, tenant.apiKey, {
      externalRef: 'dynamic-return',
      name: 'Amaka Obi',
      expectedAmount: '1000.00',
      amountPolicy: 'exact',
      onMismatch: 'return',
      expiresInSeconds: 2,
    });
    const { ExpiresAt } = await accountOf(returning.AccountRef);
    await eventually(async () => (await accountOf(returning.AccountRef)).Status === 'expired', { what: 'the account expired' });
    // A payer the provider names otherwise: the automatic return is refused, so the money stays held to return.
    const late = await pay(returning.AccountRef, 1000, { senderName: 'Somebody Else Entirely', senderAccountNumber: '0123456789' });
    const lateLine = await paymentLine(returning.AccountRef, late, false);
    assert.deepEqual(
      [lateLine.ExpectedAmount, lateLine.AmountReceived, lateLine.Variance, lateLine.MismatchAction],
      ['1000.00', '1000.00', 'after_expiry', 'return'],
    );
    assert.equal((await balanceOf(returning.AccountRef)).heldBalance, '990.00');
    await open(`/dashboard/accounts/${returning.AccountRef}`);
    assert.deepEqual(
      [await term('Status'), await term('Expires'), await term('Amount policy'), await term('Expected amount'), await term('On mismatch')],
      ['expired', lagosTime.format(new Date(ExpiresAt)), 'exactly', '₦1,000.00', 'return to the payer'],
    );
    assert.match(await statementRow(late).innerText(), /expected ₦1,000\.00, received ₦1,000\.00: after expiry, held to return/);
    assertNoPageProblems();
  });

  it("transfers from the account page after naming the receiving customer: both statements, the audit row, and the API's refusal of more than the balance (saying what is held)", async () => {
    const from = await provision(sys, tenant.apiKey, { externalRef: 'transfer-from', name: 'Kemi Adeyemi' });
    // The receiving customer's second account, named otherwise: the form names the customer, who gets the money.
    await provision(sys, tenant.apiKey, { externalRef: 'transfer-to', name: 'Ifeoma Eze' });
    const to = await provision(sys, tenant.apiKey, { externalRef: 'transfer-to', name: 'Eze Ventures Till' });
    const funding = await pay(from.AccountRef, 10_000, { fee: 0 });
    await paymentLine(from.AccountRef, funding);

    await open(`/dashboard/accounts/${from.AccountRef}`);
    // An ordinary account's payment carries no judgement.
    assert.doesNotMatch(await statementRow(funding).innerText(), /expected|received ₦|accepted|flagged/);
    await page.getByRole('link', { name: 'Transfer', exact: true }).click();
    await page.getByRole('heading', { name: 'Transfer to another account' }).waitFor();
    await settled(page);
    assert.equal(await page.getByTestId('transferable').innerText(), '₦10,000.00');
    await page.getByLabel('Amount (naira)').fill('10000.01');
    await page.getByLabel('Receiving account (AccountRef)').fill(to.AccountRef);
    await page.getByLabel('Narration (optional)').fill('Rent share');
    assert.equal(await page.getByRole('button', { name: /^Transfer to / }).count(), 0, 'no transfer before the lookup');
    await page.getByRole('button', { name: 'Look up the receiving account' }).click();
    assert.equal(await page.getByTestId('recipient-name').innerText(), 'Ifeoma Eze');
    assert.match(
      await page.getByRole('region', { name: 'Confirm the receiving account' }).innerText(),
      new RegExp(`Account name\\s+Eze Ventures Till\\s+Account\\s+${to.AccountRef}\\s+Amount\\s+₦10,000\\.01`),
    );
    await page.getByRole('button', { name: 'Transfer to Ifeoma Eze' }).click();
    const dialog = page.getByRole('dialog', { name: 'Make this transfer?' });
    assert.match(await dialog.innerText(), new RegExp(`Move ₦10,000\\.01 from ${from.AccountRef} to Ifeoma Eze \\(${to.AccountRef}\\)`));
    await dialog.getByRole('button', { name: 'Transfer now' }).click();
    await dialog.getByRole('alert').getByText('insufficient funds', { exact: true }).waitFor();
    assert.deepEqual(
      [(await balanceOf(from.AccountRef)).ledgerBalance, (await balanceOf(to.AccountRef)).ledgerBalance],
      ['10000.00', '0.00'],
      'nothing moved',
    );
    assert.deepEqual(await auditRows('transfer.made'), []);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // A new amount needs a new lookup (and is a new request).
    await page.getByLabel('Amount (naira)').fill('1234.56');
    assert.equal(await page.getByTestId('recipient-name').count(), 0);
    await page.getByRole('button', { name: 'Look up the receiving account' }).click();
    assert.equal(await page.getByTestId('recipient-name').innerText(), 'Ifeoma Eze');
    await page.getByRole('button', { name: 'Transfer to Ifeoma Eze' }).click();
    await dialog.getByRole('button', { name: 'Transfer now' }).click();

    await page.getByRole('heading', { name: `Account ${from.AccountRef}` }).waitFor();
    await settled(page);
    assert.equal(await page.getByTestId('account-ledger').innerText(), '₦8,765.44');
    assert.match(
      await statementRow('Transfer to').innerText(),
      new RegExp(`^[^\\n]+\\s+Transfer to ${to.AccountRef} — Rent share[\\s\\S]*confirmed\\s+₦1,234\\.56\\s+₦8,765\\.44$`),
    );
    await open(`/dashboard/accounts/${to.AccountRef}`);
    assert.match(
      await statementRow('Transfer from').innerText(),
      new RegExp(`^[^\\n]+\\s+Transfer from ${from.AccountRef} — Rent share[\\s\\S]*confirmed\\s+₦1,234\\.56\\s+₦1,234\\.56$`),
    );

    assert.deepEqual(
      [(await balanceOf(from.AccountRef)).ledgerBalance, (await balanceOf(to.AccountRef)).ledgerBalance],
      ['8765.44', '1234.56'],
    );
    const { transfers } = (await v1('GET', `/v1/accounts/${to.AccountRef}/transfers`)).body;
    assert.deepEqual(
      transfers.map((transfer: Record<string, string>) => [
        transfer.fromAccountRef,
        transfer.toAccountRef,
        transfer.amount,
        transfer.source,
      ]),
      [[from.AccountRef, to.AccountRef, '1234.56', 'dashboard']],
    );
    const [audited, ...more] = await auditRows('transfer.made');
    assert.deepEqual(more, [], 'one audit row');
    assert.deepEqual(
      [
        audited.actor,
        audited.target_id,
        audited.detail.fromAccountRef,
        audited.detail.toAccountRef,
        audited.detail.amount,
        audited.detail.narration,
      ],
      [admin.email, transfers[0].id, from.AccountRef, to.AccountRef, '1234.56', 'Rent share'],
    );

    // Money a KYC limit holds (10,000.00 of a tier-1 customer's 60,000.00): the refusal says what may be spent and what is held, and why.
    const holding = await provision(sys, tenant.apiKey, { externalRef: 'transfer-held', name: 'Bola Ade' });
    await paymentLine(holding.AccountRef, await pay(holding.AccountRef, 60_000, { fee: 0 }));
    await open(`/dashboard/accounts/${holding.AccountRef}`);
    // The account page shows what is held and, by kind, what holds it (only the kinds with money).
    assert.deepEqual(
      [await page.getByTestId('account-held').innerText(), await page.getByTestId('account-reserved').innerText()],
      ['₦10,000.00', 'KYC limit: ₦10,000.00'],
    );
    await page.getByRole('link', { name: 'Transfer', exact: true }).click();
    await page.getByRole('heading', { name: 'Transfer to another account' }).waitFor();
    await settled(page);
    await page.getByLabel('Amount (naira)').fill('55000.00');
    await page.getByLabel('Receiving account (AccountRef)').fill(to.AccountRef);
    await page.getByRole('button', { name: 'Look up the receiving account' }).click();
    await page.getByRole('button', { name: 'Transfer to Ifeoma Eze' }).click();
    await dialog.getByRole('button', { name: 'Transfer now' }).click();
    await dialog
      .getByRole('alert')
      .getByText("insufficient funds: ₦50,000.00 can be spent now; ₦10,000.00 is held by the customer's KYC limits.", { exact: true })
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assertNoPageProblems();
  });

  it("lets an admin set a split rule with a percent part and a fixed part, shows it, refuses bad ones with the API's message, and removes it", async () => {
    const shop = await provision(sys, tenant.apiKey, { externalRef: 'split-shop', name: 'Bisi Market' });
    const seller = await provision(sys, tenant.apiKey, { externalRef: 'split-seller', name: 'Yemi Crafts' });
    const platform = await provision(sys, tenant.apiKey, { externalRef: 'split-platform', name: 'Market Platform' });
    const ruleOf = () => v1('GET', `/v1/accounts/${shop.AccountRef}/split-rule`);

    await open(`/dashboard/accounts/${shop.AccountRef}`);
    const section = page.getByRole('region', { name: 'Split rule', exact: true });
    await section.getByText('No split rule: payments stay whole in this account.').waitFor();
    await section.getByRole('button', { name: 'Add a split rule' }).click();
    const form = section.getByRole('form', { name: 'Split rule' });
    const part = (number: number) => form.getByRole('group', { name: `Part ${number}` });
    await part(1).getByLabel('To account (accountRef)').fill(seller.AccountRef);
    await part(1).getByRole('textbox', { name: 'Percent', exact: true }).fill('12.5');
    await form.getByRole('button', { name: 'Add a part' }).click();
    await part(2).getByLabel('To account (accountRef)').fill(platform.AccountRef);
    await part(2).getByRole('combobox').selectOption('amount');
    await part(2).getByRole('textbox', { name: 'Amount (₦)', exact: true }).fill('100');
    await form.getByRole('button', { name: 'Save split rule' }).click();
    await section.getByRole('status').getByText('Split rule saved.').waitFor();
    // The notice shows as the section reloads the stored rule; its table comes with the answer.
    await settled(page);
    const parts = section.getByRole('region', { name: 'Split parts' }).locator('tbody tr');
    assert.deepEqual(await parts.allInnerTexts(), [`${seller.AccountRef}\t12.5%`, `${platform.AccountRef}\t₦100.00`]);
    assert.match(await section.innerText(), /account bears the provider fee: shares are of the gross payment/);
    const stored = await ruleOf();
    assert.deepEqual(
      [stored.status, stored.body.feeBearer, stored.body.parts],
      [
        200,
        'account',
        [
          { toAccountRef: seller.AccountRef, percent: 12.5, amount: null },
          { toAccountRef: platform.AccountRef, percent: null, amount: '100.00' },
        ],
      ],
    );

    // Changes the API refuses: the page shows its message, and the stored rule stays as it was.
    await section.getByRole('button', { name: 'Change split rule' }).click();
    assert.equal(
      await part(1).getByRole('textbox', { name: 'Percent', exact: true }).inputValue(),
      '12.5',
      'the form starts from the stored rule',
    );
    await part(2).getByLabel('To account (accountRef)').fill(shop.AccountRef);
    await form.getByRole('button', { name: 'Save split rule' }).click();
    await section.getByRole('alert').getByText('a split part cannot pay the account itself', { exact: true }).waitFor();
    await part(2).getByLabel('To account (accountRef)').fill(platform.AccountRef);
    await part(1).getByRole('textbox', { name: 'Percent', exact: true }).fill('10.005');
    await form.getByRole('button', { name: 'Save split rule' }).click();
    await section
      .getByRole('alert')
      .getByText('percent must be a number from 0.01 to 100, with at most two decimals', { exact: true })
      .waitFor();
    assert.deepEqual((await ruleOf()).body, stored.body);
    await form.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await parts.count(), 2);

    await section.getByRole('button', { name: 'Remove split rule' }).click();
    await page.getByRole('dialog', { name: 'Remove the split rule?' }).getByRole('button', { name: 'Remove split rule' }).click();
    await section.getByRole('status').getByText('Split rule removed.').waitFor();
    await section.getByText('No split rule: payments stay whole in this account.').waitFor();
    const removed = await ruleOf();
    assert.deepEqual([removed.status, removed.body.error], [404, 'split rule not found']);
    const audited = await db('audit_log')
      .where({ tenant_id: tenant.tenantId, target_id: shop.AccountRef })
      .whereIn('action', ['split_rule.set', 'split_rule.removed'])
      .orderBy('id')
      .select('actor', 'action');
    assert.deepEqual(
      audited.map((row) => [row.actor, row.action]),
      [
        [admin.email, 'split_rule.set'],
        [admin.email, 'split_rule.removed'],
      ],
    );
    assertNoPageProblems();
  });

  it('sets a daily balance sweep to a saved beneficiary from the account page, shows it, and stops it', async () => {
    const account = await provision(sys, tenant.apiKey, { externalRef: 'sweep-account', name: 'Segun Ade' });
    swept.push(account.ID);
    const saved = await v1('POST', '/v1/beneficiaries', { bankCode: '044', accountNumber: '0246810002', nickname: 'Sweep supplier' });
    assert.equal(saved.status, 201, saved.text);
    const beneficiary = saved.body as { id: string; accountName: string };
    // Twelve hours from now (Lagos is UTC+1 all year), so no run falls inside the test.
    const hour = (new Date().getUTCHours() + 1 + 12) % 24;
    const dailyAt = `${String(hour).padStart(2, '0')}:30`;
    const scheduleOf = async () => {
      try {
        return await temporal.schedule.getHandle(balanceSweepScheduleId(account.ID)).describe();
      } catch (error) {
        if (error instanceof ScheduleNotFoundError) return null;
        throw error;
      }
    };

    await open(`/dashboard/accounts/${account.AccountRef}`);
    const section = page.getByRole('region', { name: 'Balance sweep', exact: true });
    await section.getByText('No balance sweep: the balance stays in the account until it is settled.').waitFor();
    const form = section.getByRole('form', { name: 'Balance sweep settings' });
    assert.ok(await form.getByRole('button', { name: 'Set up sweep' }).isDisabled(), 'no sweep without a beneficiary');
    await form.getByLabel('Pay to').selectOption({ label: 'Sweep supplier — 0246810002 (044)' });
    assert.ok(await form.getByRole('radio', { name: 'Every day at' }).isChecked());
    await form.getByLabel('Time (Lagos)').fill(dailyAt);
    await form.getByLabel('Keep (₦)').fill('250.00');
    await form.getByRole('button', { name: 'Set up sweep' }).click();
    const dialog = page.getByRole('dialog', { name: `Sweep ${account.AccountRef}?` });
    assert.match(
      await dialog.innerText(),
      new RegExp(
        `Every day at ${dailyAt} \\(Lagos time\\), what the account can settle less ₦250\\.00 is paid to ${escaped(beneficiary.accountName)} as a settlement\\.`,
      ),
    );
    await dialog.getByRole('button', { name: 'Set up sweep' }).click();
    await section.getByRole('status').getByText('Balance sweep saved.').waitFor();
    await settled(page);
    const summary = section.locator('dl.summary');
    const payee = `${beneficiary.accountName} (Sweep supplier), 0246810002 (044)`;
    // The beneficiary is named once the list of beneficiaries has arrived (its id until then).
    await summary.getByText(payee, { exact: true }).waitFor();
    assert.match(
      await summary.innerText(),
      new RegExp(`^Pay to\\s+${escaped(payee)}\\s+Schedule\\s+Every day at ${dailyAt} \\(Lagos time\\)\\s+Keep\\s+₦250\\.00\\s+Since`),
    );
    await section.getByText('No runs yet.').waitFor();
    await form.locator('option', { hasText: 'Sweep supplier' }).waitFor({ state: 'attached' });
    assert.equal(await form.getByLabel('Pay to').inputValue(), beneficiary.id, 'the form shows the sweep as saved');
    const stored = await v1('GET', `/v1/accounts/${account.AccountRef}/sweep`);
    assert.deepEqual(
      [stored.status, stored.body.beneficiaryId, stored.body.schedule, stored.body.keep],
      [200, beneficiary.id, { dailyAt }, '250.00'],
    );
    const daily = await eventually(async () => (await scheduleOf())?.spec.calendars?.[0], { what: 'the daily Schedule' });
    assert.deepEqual([daily.hour, daily.minute], [[{ start: hour, end: hour, step: 1 }], [{ start: 30, end: 30, step: 1 }]]);

    await section.getByRole('button', { name: 'Stop sweep' }).click();
    await page.getByRole('dialog', { name: 'Stop the balance sweep?' }).getByRole('button', { name: 'Stop sweep' }).click();
    await section.getByRole('status').getByText('Balance sweep stopped.').waitFor();
    await section.getByText('No balance sweep: the balance stays in the account until it is settled.').waitFor();
    const gone = await v1('GET', `/v1/accounts/${account.AccountRef}/sweep`);
    assert.deepEqual([gone.status, gone.body.error], [404, 'balance sweep not found']);
    await eventually(async () => (await scheduleOf()) === null, { what: 'the Schedule deleted' });
    const audited = await db('audit_log')
      .where({ tenant_id: tenant.tenantId, target_id: account.AccountRef })
      .whereIn('action', ['balance_sweep.set', 'balance_sweep.deleted'])
      .orderBy('id')
      .select('actor', 'action');
    assert.deepEqual(
      audited.map((row) => [row.actor, row.action]),
      [
        [admin.email, 'balance_sweep.set'],
        [admin.email, 'balance_sweep.deleted'],
      ],
    );
    assertNoPageProblems();
  });
});
