import assert from 'node:assert/strict';
import { generate } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createKnex, type Db } from '../../src/db';
import { E2E_TIMINGS } from '../e2e/system';
import { cliTenant, type E2eTenant } from '../e2e/tenant';
import { startSystem, type RunningSystem } from '../helpers/processes';
import {
  addOperator,
  assertAccessible,
  launchChromium,
  limitToTheRunningTest,
  newContext,
  screenshot,
  settled,
  signIn,
  watchForErrors,
  type Operator,
} from './browser';

/** The code an authenticator app shows `aheadMs` from now (a code of the next step is accepted too). */
const codeOf = (secret: string, aheadMs = 0) => generate({ secret, epoch: Math.floor((Date.now() + aheadMs) / 1000) });

/** Two-factor sign-in as a user meets it: enrolment with the key the page shows, then signing out and in with a code. */
describe('two-factor sign-in in a browser', function () {
  let sys: RunningSystem;
  let db: Db;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let tenant: E2eTenant;
  let operator: Operator;

  const auditRows = (action: string) =>
    db('audit_log').where({ tenant_id: tenant.tenantId, action }).orderBy('id').select('actor', 'target_id', 'detail');

  before(async function () {
    this.timeout(180_000);
    sys = await startSystem(E2E_TIMINGS);
    db = createKnex({ DATABASE_URL: sys.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    tenant = await cliTenant(sys, 'Two Factor Ltd');
    operator = await addOperator(db, sys.env, tenant.tenantId, 'operator');
    browser = await launchChromium();
    context = await newContext(browser, sys.apiUrl);
    page = await context.newPage();
    problems = watchForErrors(page);
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

  it('enrols with a code computed from the key shown, then signs out and signs in again with a code', async () => {
    await signIn(page, operator);
    await page.getByRole('link', { name: 'Two-factor' }).click();
    await settled(page);
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    assert.match(await page.getByTestId('two-factor-state').innerText(), /^Off/);

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await page.getByRole('img', { name: 'QR code of your authenticator key' }).locator('svg').waitFor();
    await assertAccessible(page, 'two-factor enrolment');
    await screenshot(page, 'two-factor-enrolment', 'desktop');

    await page.getByLabel('Code from the app').fill(await codeOf(secret));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const codes = page.getByTestId('recovery-codes').locator('li');
    await codes.first().waitFor();
    assert.equal(await codes.count(), 10);
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByText('On: signing in asks for a code of your authenticator app. 10 recovery code(s) left.').waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(operator.email);
    await page.getByLabel('Password').fill(operator.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await assertAccessible(page, 'two-factor sign-in');
    await screenshot(page, 'two-factor-sign-in', 'desktop');

    // A wrong code is refused on the page; the code of the next step (the enrolment's is spent) signs in.
    const next = await codeOf(secret, 30_000);
    await page.getByLabel('Code from the app').fill(next === '000000' ? '000001' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('that code is not right').waitFor();
    await page.getByLabel('Code from the app').fill(next);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('whoami').waitFor();
    assert.match(await page.getByTestId('whoami').innerText(), new RegExp(operator.email.replace(/[.+]/g, '\\$&')));

    const enrolled = await auditRows('two_factor.enrolled');
    assert.equal(enrolled.length, 1);
    assert.equal(enrolled[0]!.actor, operator.email);
    const signIns = await auditRows('session.signed_in');
    assert.deepEqual(
      signIns.map((row) => row.detail),
      [{}, { secondFactor: 'totp' }],
    );
    assert.deepEqual(problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });
});
