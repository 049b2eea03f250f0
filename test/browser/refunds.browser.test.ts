import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createKnex, type Db } from '../../src/db';
import { accountHolderName } from '../../src/sandbox/names';
import { E2E_TIMINGS } from '../e2e/system';
import { cliTenant, provision, type E2eTenant } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { addOperator, launchChromium, limitToTheRunningTest, newContext, settled, signIn, watchForErrors, type Operator } from './browser';

/**
 * A refund of a payment from its line on the account's statement, in a real browser against the real processes: the
 * dialog shows the provider's name for the payer's account and what may be refunded, the operator refunds part of it,
 * and the payer is paid once at the sandbox; the refund is then listed in the dialog and audited.
 */
describe('account page in a browser: a refund of a payment', function () {
  let sys: RunningSystem;
  let db: Db;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let tenant: E2eTenant;
  let operator: Operator;

  const v1 = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    call(sys.apiUrl, method, path, { apiKey: tenant.apiKey, ...(body === undefined ? {} : { body }) });

  before(async function () {
    this.timeout(180_000);
    sys = await startSystem(E2E_TIMINGS);
    db = createKnex({ DATABASE_URL: sys.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    tenant = await cliTenant(sys, 'Refund Desk Ltd');
    operator = await addOperator(db, sys.env, tenant.tenantId, 'operator');
    browser = await launchChromium();
    context = await newContext(browser, sys.apiUrl);
    page = await context.newPage();
    problems = watchForErrors(page);
    await signIn(page, operator);
  });

  beforeEach(() => {
    if (context) limitToTheRunningTest(context);
  });

  after(async function () {
    this.timeout(60_000);
    await browser?.close();
    await sys?.stop();
    await db?.destroy();
  });

  it('an operator refunds part of a confirmed payment from its statement line, seeing the payer’s account named first, and the payer is paid once', async () => {
    const payerAccount = '0123450042';
    const payerName = accountHolderName(payerAccount);
    const account = await provision(sys, tenant.apiKey, { externalRef: 'refund-shop', name: 'Kola Stores' });
    const paid = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 10_000, fee: 0, senderAccountNumber: payerAccount, narration: 'Invoice' },
    });
    assert.equal(paid.status, 200, paid.text);
    await eventually(async () => (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body.availableBalance === '10000.00', {
      what: 'the payment confirmed',
    });

    await page.goto(`/dashboard/accounts/${account.AccountRef}`);
    await settled(page);
    const paymentLine = page.getByRole('region', { name: 'Statement entries' }).locator('tbody tr').first();
    await paymentLine.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.getByTestId('refund-account-name').getByText(payerName).waitFor();
    assert.match(await dialog.getByTestId('refund-destination').innerText(), /The names match\./);
    assert.equal(await dialog.getByTestId('refund-refundable').innerText(), '₦10,000.00');
    assert.equal(await dialog.getByLabel('Amount (naira)').inputValue(), '10000.00');
    await dialog.getByLabel('Amount (naira)').fill('4000');
    await dialog.getByLabel('Reason').fill('customer paid twice');
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByRole('status').getByText(`₦4,000.00 being refunded to ${payerName}`, { exact: false }).waitFor();

    const transactionGroupId = (await v1('GET', `/v1/accounts/${account.AccountRef}/statement`)).body.lines[0].entry.TransactionGroupId;
    const done = await eventually(
      async () => {
        const listed = (await v1('GET', `/v1/payments/${transactionGroupId}/refunds`)).body;
        return listed.refunds[0]?.status === 'success' ? listed : null;
      },
      { what: 'the refund paid' },
    );
    assert.deepEqual(
      [done.refundable, done.refunds.length, done.refunds[0].amount, done.refunds[0].reason],
      ['6000.00', 1, '4000.00', 'customer paid twice'],
    );
    const atSandbox = (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${done.refunds[0].merchantTxRef}`)).body;
    assert.equal(atSandbox.payouts, 1);
    assert.equal(atSandbox.submissions[0].accountNumber, payerAccount);

    // The dialog lists the refund made, and offers what is left.
    await page.reload();
    await settled(page);
    const line = page
      .getByRole('region', { name: 'Statement entries' })
      .locator('tbody tr')
      .filter({ hasText: 'Payment received' })
      .first();
    await line.getByRole('button', { name: 'Refund' }).click();
    const again = page.getByRole('dialog', { name: 'Refund this payment?' });
    await again.getByTestId('refund-refundable').getByText('₦6,000.00').waitFor();
    await again.getByTestId('payment-refunds').getByText('₦4,000.00').waitFor();
    await again.getByRole('button', { name: 'Cancel' }).click();

    const audited = await db('audit_log').where({ tenant_id: tenant.tenantId, action: 'payment.refunded' }).select('actor', 'detail');
    assert.deepEqual(
      audited.map((row) => [row.actor, row.detail.amount, row.detail.reason]),
      [[operator.email, '4000.00', 'customer paid twice']],
    );
    assert.deepEqual(problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });
});
