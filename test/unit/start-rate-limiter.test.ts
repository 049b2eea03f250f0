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
    const limiter = createRateLimiter(50);
    for (let i = 0; i < 50; i += 1) assert.ok(limiter.tryTake());
    const started = Date.now();
    await limiter.take();
    assert.ok(Date.now() - started >= 15, 'the 51st token came without waiting');
  });
});
