import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { UserRole } from '../../src/http/roles';
import { createKnex, type Db } from '../../src/db';
import { cliTenant, type E2eTenant } from '../e2e/tenant';
import { call, type HttpResponse } from '../helpers/http';
import type { RunningSystem } from '../helpers/processes';
import { addOperator, limitToTheRunningTest, newContext, signIn, watchForErrors, type Operator } from './browser';
import { browserSystem, sharedChromium } from './shared';

/**
 * What a browser test of one tenant's dashboard works with: the real processes, a database handle, the tenant, one
 * dashboard user of a role, a page of its own (signed in as that user unless asked not to be) and the page's errors.
 */
export interface Desk {
  sys: RunningSystem;
  db: Db;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  problems: string[];
  tenant: E2eTenant;
  user: Operator;
  /** A call to the tenant's API under its key. */
  v1(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<HttpResponse>;
}

/**
 * Registers the suite's hooks and answers the desk they fill in: before the suite, the processes, a tenant named
 * `tenantName` with one user of `role`, Chromium and a page (signed in unless `signedIn` is false); before each test,
 * the page's timeouts bounded by the test's; after the suite, its browser context closed. The processes and Chromium are
 * the layer's (./shared).
 */
export function useDesk(tenantName: string, { role, signedIn = true }: { role: UserRole; signedIn?: boolean }): Desk {
  const desk = {
    v1: (method, path, body) =>
      call(desk.sys.apiUrl, method, path, { apiKey: desk.tenant.apiKey, ...(body === undefined ? {} : { body }) }),
  } as Desk;

  before(async function () {
    this.timeout(180_000);
    desk.sys = await browserSystem();
    desk.db = createKnex({ DATABASE_URL: desk.sys.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    desk.tenant = await cliTenant(desk.sys, tenantName);
    desk.user = await addOperator(desk.db, desk.sys.env, desk.tenant.tenantId, role);
    desk.browser = await sharedChromium();
    desk.context = await newContext(desk.browser, desk.sys.apiUrl);
    desk.page = await desk.context.newPage();
    desk.problems = watchForErrors(desk.page);
    if (signedIn) await signIn(desk.page, desk.user);
  });

  beforeEach(() => {
    if (desk.context) limitToTheRunningTest(desk.context);
  });

  after(async function () {
    this.timeout(60_000);
    await desk.context?.close();
    await desk.db?.destroy();
  });

  return desk;
}
