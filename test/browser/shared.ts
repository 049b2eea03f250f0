import type { Browser } from 'playwright-core';
import { E2E_TIMINGS } from '../e2e/system';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { launchChromium } from './browser';

let system: Promise<RunningSystem> | undefined;
let chromium: Promise<Browser> | undefined;

/** The first call's promise, or a new try after a failed one (a file after it may still find the machine less busy). */
function once<T>(current: Promise<T> | undefined, start: () => Promise<T>, forget: () => void): Promise<T> {
  return (
    current ??
    start().catch((error: unknown) => {
      forget();
      throw error;
    })
  );
}

/**
 * One set of real processes (API, worker, sandbox) for every browser file, started by the first that asks and stopped
 * after the layer: each file works as a tenant of its own, so none sees another's rows. Reconciliation runs only when a
 * test starts one: the hourly Schedule's platform run could otherwise find the refunded payments of the dashboard's
 * test first, whenever the layer runs across the top of an hour.
 */
export function browserSystem(): Promise<RunningSystem> {
  system = once(
    system,
    () => startSystem({ ...E2E_TIMINGS, RECONCILIATION_INTERVAL: '30d' }),
    () => (system = undefined),
  );
  return system;
}

/** One Chromium for every browser file: each opens contexts of its own (cookies and storage apart) and closes them. */
export function sharedChromium(): Promise<Browser> {
  chromium = once(chromium, launchChromium, () => (chromium = undefined));
  return chromium;
}

after(async function () {
  this.timeout(60_000);
  await (await chromium?.catch(() => undefined))?.close();
  await (await system?.catch(() => undefined))?.stop();
});
