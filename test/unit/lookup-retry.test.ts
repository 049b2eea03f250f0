import assert from 'node:assert/strict';
import { AppError, ProviderOutageError } from '../../src/errors';
import { ProviderRejectedError, ProviderUnavailableError } from '../../src/provider/errors';
import { lookupRetryStep, lookupWithRetries } from '../../src/provider/lookup-retry';

const throttled = (retryAfterMs: number | null = null) => new ProviderUnavailableError('lookupAccount: HTTP 429', { retryAfterMs });
const down = () => new ProviderUnavailableError('lookupAccount: ECONNREFUSED');

/**
 * A lookup answering each call from `answers` (an error is thrown) on a clock that only sleeping moves, and
 * each call taking `callMs`: returns what it made of it and every pause it took.
 */
async function run(answers: Array<unknown>, options: { budgetMs: number; callMs?: number; random?: number }) {
  let clock = 0;
  let calls = 0;
  const pauses: number[] = [];
  const outcome = await lookupWithRetries(
    async () => {
      const answer = answers[Math.min(calls, answers.length - 1)];
      calls += 1;
      clock += options.callMs ?? 0;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    {
      budgetMs: options.budgetMs,
      now: () => clock,
      random: () => options.random ?? 0.5,
      sleep: async (ms) => {
        pauses.push(ms);
        clock += ms;
      },
    },
  ).then(
    (value): { value?: unknown; error?: unknown } => ({ value }),
    (error: unknown): { value?: unknown; error?: unknown } => ({ error }),
  );
  return { ...outcome, calls, pauses, elapsedMs: clock };
}

describe('retrying a lookup made while a client waits', () => {
  it('asks again after a throttled or failed call and returns the answer that comes', async () => {
    const result = await run([throttled(), down(), { accountName: 'ADA OBI' }], { budgetMs: 3_000 });
    assert.deepEqual(result.value, { accountName: 'ADA OBI' });
    assert.equal(result.calls, 3);
    // Full jitter: half (random 0.5) of 250 ms, then of 500 ms.
    assert.deepEqual(result.pauses, [125, 250]);
  });

  it("waits at least the provider's Retry-After when it fits in the budget", async () => {
    const result = await run([throttled(1_000), 'found'], { budgetMs: 3_000 });
    assert.equal(result.value, 'found');
    assert.deepEqual(result.pauses, [1_000]);
  });

  it('gives up at once when the Retry-After would end past the budget, telling the client that Retry-After', async () => {
    const result = await run([throttled(5_000), 'never asked'], { budgetMs: 3_000 });
    assert.equal(result.calls, 1);
    assert.deepEqual(result.pauses, []);
    assert.ok(result.error instanceof ProviderOutageError);
    assert.equal(result.error.retryAfterSeconds, 5);
    assert.equal(result.error.kind, 'provider_unavailable');
  });

  it('stops asking when the budget is spent, and tells the client to come back after the budget', async () => {
    const result = await run([down()], { budgetMs: 3_000, callMs: 400, random: 0.99 });
    assert.ok(result.error instanceof ProviderOutageError, String(result.error));
    assert.equal(result.error.retryAfterSeconds, 3);
    assert.ok(result.calls >= 3, `asked ${result.calls} times`);
    // Every retry started inside the budget; the last call may end after it.
    assert.ok(result.elapsedMs - 400 < 3_000, `${result.elapsedMs} ms`);
    assert.ok(
      result.pauses.every((ms) => ms <= 1_000),
      `pauses ${result.pauses.join(', ')} ms never exceed 1 s`,
    );
  });

  it('never retries a definite answer: a 4xx is thrown at once, as is anything not from the provider', async () => {
    const rejected = new ProviderRejectedError(400, '400', 'invalid account number');
    const refusal = await run([rejected, 'never asked'], { budgetMs: 3_000 });
    assert.equal(refusal.error, rejected);
    assert.equal(refusal.calls, 1);
    const bug = new TypeError('not the provider');
    const thrown = await run([bug, 'never asked'], { budgetMs: 3_000 });
    assert.equal(thrown.error, bug);
    assert.equal(thrown.calls, 1);
  });

  it('with no budget asks once', async () => {
    const result = await run([down(), 'never asked'], { budgetMs: 0 });
    assert.equal(result.calls, 1);
    assert.ok(result.error instanceof AppError);
    assert.equal(result.error.retryAfterSeconds, 1);
  });

  it('the pause grows with each attempt up to 1 s, by a random share, never below the Retry-After', () => {
    const pause = (attempt: number, random: number, retryAfterMs: number | null = null) =>
      lookupRetryStep({ attempt, elapsedMs: 0, budgetMs: 60_000, retryAfterMs, random });
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((attempt) => pause(attempt, 0.999)),
      [249, 499, 999, 999, 999].map((waitMs) => ({ retry: true, waitMs })),
    );
    assert.deepEqual(pause(3, 0), { retry: true, waitMs: 0 });
    assert.deepEqual(pause(1, 0.999, 2_000), { retry: true, waitMs: 2_000 });
  });
});
