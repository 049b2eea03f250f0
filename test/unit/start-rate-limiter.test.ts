import assert from 'node:assert/strict';
import { createRateLimiter } from '../../src/workflow-starts/start-rate-limiter';

describe('workflow start rate limiter', () => {
  it('lets one second of tokens through at once, then refuses until time refills them', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(10, () => now);
    const burst = Array.from({ length: 15 }, () => limiter.tryTake()).filter(Boolean).length;
    assert.equal(burst, 10);
    now += 250;
    assert.deepEqual([limiter.tryTake(), limiter.tryTake(), limiter.tryTake()], [true, true, false]);
  });

  it('never banks more than one second of tokens, however long it sat idle', () => {
    let now = 0;
    const limiter = createRateLimiter(4, () => now);
    now += 60_000;
    assert.equal(Array.from({ length: 10 }, () => limiter.tryTake()).filter(Boolean).length, 4);
  });

  it('take() waits for the next token instead of refusing', async () => {
    // A clock of the test's own: the wait is judged by the limiter's time, never by how fast this machine runs the loop.
    let now = 0;
    const limiter = createRateLimiter(50, () => now);
    for (let i = 0; i < 50; i += 1) assert.ok(limiter.tryTake());
    let taken = false;
    const taking = limiter.take().then(() => {
      taken = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(taken, false, 'the 51st token came before any time passed');
    now += 20;
    await taking;
    assert.equal(taken, true);
  });
});
