import AxeBuilder from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createAuthService } from '../../src/auth/auth.service';
import { loadConfig } from '../../src/config';
import type { Db } from '../../src/db';
import type { UserRole } from '../../src/http/roles';
import { timeLeftMs } from '../helpers/deadline';

/**
 * Debian's Chromium (provisioned by scripts/infra/chromium.mjs), headless. The flags keep it off the
 * network it would otherwise call home on (the closed network refuses those hosts); Playwright gives
 * every launch a fresh temporary profile (its own --user-data-dir).
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  return chromium.launch({
    timeout: leftOfTheRunningTest(),
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const PASSWORD = 'a long dashboard password';

export interface Operator {
  email: string;
  password: string;
}

/** A new dashboard user of the tenant, with a fresh email. */
export async function addOperator(db: Db, env: NodeJS.ProcessEnv, tenantId: string, role: UserRole): Promise<Operator> {
  const email = `ops+${randomUUID().slice(0, 8)}@example.com`;
  await createAuthService({ db, config: loadConfig(env) }).createUser(tenantId, email, PASSWORD, role);
  return { email, password: PASSWORD };
}

export async function signIn(page: Page, who: Operator): Promise<void> {
  await page.goto('/dashboard');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
}

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export async function newContext(browser: Browser, baseURL: string, viewport = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL,
    viewport,
    locale: 'en-GB',
    timezoneId: 'Africa/Lagos',
    ...(viewport === PHONE ? { isMobile: true, hasTouch: true } : {}),
  });
  limitToTheRunningTest(context);
  return context;
}

/**
 * Gives every action and wait in `context` what is left of the running hook's or test's time (none when
 * it has no limit), so a slow page only waits longer and a failure still names the locator it waited for.
 */
export function limitToTheRunningTest(context: BrowserContext): void {
  context.setDefaultTimeout(leftOfTheRunningTest());
}

/** What is left of the running hook's or test's time, as a Playwright timeout (0: none). */
function leftOfTheRunningTest(): number {
  const leftMs = timeLeftMs();
  return Number.isFinite(leftMs) ? leftMs : 0;
}

/** Where screenshots go (git-ignored); printed once so a person can look at them. */
export function artifactsDir(): string {
  const dir = process.env.BROWSER_ARTIFACTS_DIR || path.resolve(__dirname, '..', '..', '..', '.artifacts', 'browser');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The page has finished loading its data: no loading state and no reload in flight. (Locators only: waitForFunction
 * evaluates its predicate with eval, which the dashboard's CSP rightly refuses.)
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('domcontentloaded');
  await page.locator('main').first().waitFor();
  await page.locator('.state-loading').first().waitFor({ state: 'detached' });
  // A reload keeps the previous data on screen, marked busy, until the new answer arrives.
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
}

/** How far the page scrolls sideways (0 when it fits its viewport). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

export async function screenshot(page: Page, name: string, width: 'desktop' | 'phone'): Promise<string> {
  const file = path.join(artifactsDir(), `${name}-${width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * axe-core over the whole page: no serious or critical violation of WCAG 2.1 A/AA. It runs in the page itself (axe.run,
 * AxeBuilder's legacy mode): the default runs it in parts and joins them in a blank page opened for each check, which
 * only pages with frames of other origins need (the dashboard has no frames) and which made each check take twice as long.
 */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).setLegacyMode().analyze();
  const blocking = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    blocking.map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes
          .map((node) => node.target.join(' '))
          .slice(0, 3)
          .join('; ')})`,
    ),
    [],
    `accessibility of ${name}`,
  );
}

/** Collects what the page itself reports as broken: console errors (CSP refusals show there) and failed requests. */
export function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 40[134]/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    if (!/download|ERR_ABORTED/.test(request.failure()?.errorText ?? ''))
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  return problems;
}
