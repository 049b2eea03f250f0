import assert from 'node:assert/strict';
import { ProviderUnavailableError } from '../../src/provider/errors';
import type { PaymentProvider } from '../../src/provider/payment-provider';
import { createProviderLanes } from '../../src/provider/provider-lanes';
import type { ProviderRowPage, ProviderTransaction } from '../../src/provider/provider.types';

/** Long enough that only a finished foreground call, never the cap, can let a background call start. */
const NEVER = 60_000;

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const EMPTY_PAGE: ProviderRowPage = { rows: [], nextCursor: null };
const LISTING = { scope: { kind: 'wallet' as const }, from: new Date(0), to: new Date(1), limit: 1 };
const throttled = (retryAfterMs: number) => new ProviderUnavailableError('getTransaction: HTTP 429', { retryAfterMs });

/** A provider whose lookups and listings answer what each test queues, recording when each call starts. */
function scriptedProvider() {
  const events: string[] = [];
  const lookups: Array<() => Promise<ProviderTransaction | null>> = [];
  const listings: Array<() => Promise<ProviderRowPage>> = [];
  const provider = {
    getTransaction: async (reference: string) => {
      events.push(`lookup ${reference}`);
      return lookups.shift()!();
    },
    listTransactions: async () => {
      events.push('listing');
      return listings.shift()!();
    },
  } as unknown as PaymentProvider;
  return { provider, events, lookups, listings };
}

describe('provider lanes', () => {
  it('starts a reconciliation call only after the settlement call in flight has finished', async () => {
    const { provider, events, lookups, listings } = scriptedProvider();
    const lanes = createProviderLanes(provider, { backgroundConcurrency: 1, yieldAtMostMs: NEVER });
    const settlementAnswer = deferred<ProviderTransaction | null>();
    lookups.push(() => settlementAnswer.promise);
    listings.push(async () => EMPTY_PAGE);
    const settlement = lanes.foreground.getTransaction('settlement');
    const reconciliation = lanes.background.listTransactions(LISTING);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(events, ['lookup settlement'], 'the reconciliation call went out while a settlement call was in flight');
    events.push('settlement answered');
    settlementAnswer.resolve(null);
    await settlement;
    await reconciliation;
    assert.deepEqual(events, ['lookup settlement', 'settlement answered', 'listing']);
  });

  it("waits out the provider's Retry-After for reconciliation while settlement calls go on", async () => {
    const { provider, events, lookups, listings } = scriptedProvider();
    const lanes = createProviderLanes(provider, { backgroundConcurrency: 1, yieldAtMostMs: 0 });
    lookups.push(async () => {
      throw throttled(400);
    });
    await assert.rejects(lanes.foreground.getTransaction('first'), ProviderUnavailableError);
    const throttledAt = Date.now();
    let listedAt = 0;
    listings.push(async () => {
      listedAt = Date.now();
      return EMPTY_PAGE;
    });
    lookups.push(async () => null);
    const reconciliation = lanes.background.listTransactions(LISTING);
    await lanes.foreground.getTransaction('second');
    await reconciliation;
    assert.deepEqual(events, ['lookup first', 'lookup second', 'listing']);
    assert.ok(listedAt - throttledAt >= 400 - 5, `the listing went out ${listedAt - throttledAt} ms after a 429 asking for 400 ms`);
  });

  it('makes a throttled reconciliation call once, leaving its caller (which counts it) to ask again', async () => {
    const { provider, events, lookups } = scriptedProvider();
    const lanes = createProviderLanes(provider, { backgroundConcurrency: 1, yieldAtMostMs: 0 });
    lookups.push(async () => {
      throw throttled(50);
    });
    await assert.rejects(lanes.background.getTransaction('throttled'), ProviderUnavailableError);
    assert.deepEqual(events, ['lookup throttled']);
  });

  it('keeps reconciliation calls to their concurrency', async () => {
    const { provider, events, listings } = scriptedProvider();
    const lanes = createProviderLanes(provider, { backgroundConcurrency: 1, yieldAtMostMs: 0 });
    const firstPage = deferred<ProviderRowPage>();
    listings.push(
      () => firstPage.promise,
      async () => EMPTY_PAGE,
    );
    const first = lanes.background.listTransactions(LISTING);
    const second = lanes.background.listTransactions(LISTING);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(events, ['listing']);
    firstPage.resolve(EMPTY_PAGE);
    await Promise.all([first, second]);
    assert.deepEqual(events, ['listing', 'listing']);
  });
});
