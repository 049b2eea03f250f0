import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger';
import { startWorkerLoops } from '../../src/main/worker-loops';

const HOUR_MS = 3_600_000;

describe("the worker's background loops", () => {
  it('stop at once when a pass ends after stop() was called, without waiting out their interval', async () => {
    let endHistoryPass!: () => void;
    let historyPassStarted!: () => void;
    const started = new Promise<void>((resolve) => (historyPassStarted = resolve));
    const passes = { history: 0 };
    const loops = startWorkerLoops({
      batcher: { pass: async () => ({ batches: 0, payments: 0, failed: 0, busy: 0, roomFull: false }) },
      starter: { drain: async () => ({ found: 0 }) },
      dispatcher: { pass: async () => ({ full: false }) },
      balanceSweepSchedules: { syncPending: async () => undefined },
      accounts: { expireDue: async () => ({ full: false }) },
      historyMonths: {
        ensureMonths: () => {
          passes.history += 1;
          historyPassStarted();
          return new Promise((resolve) => (endHistoryPass = () => resolve([])));
        },
      },
      config: {
        CONFIRMATION_BATCH_WINDOW: HOUR_MS,
        OUTBOX_DRAIN_INTERVAL: HOUR_MS,
        EVENT_DISPATCH_INTERVAL: HOUR_MS,
        BALANCE_SWEEP_SCHEDULES_SYNC_INTERVAL: HOUR_MS,
        HISTORY_MONTHS_AHEAD: 3,
        HISTORY_MONTHS_INTERVAL: HOUR_MS,
      },
      logger: createLogger('silent', 'test'),
    } as unknown as Parameters<typeof startWorkerLoops>[0]);
    await started;
    const stopped = loops.stop();
    // The history months pass was under way when stop() was called; it ends now, and its loop must end with it.
    endHistoryPass();
    await stopped;
    assert.equal(passes.history, 1);
  });
});
