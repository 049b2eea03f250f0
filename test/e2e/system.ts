import { startSystem, type RunningSystem } from '../helpers/processes';

/** Short timings so every path (retries, refunds, windows) finishes in seconds; production defaults are in config. */
export const E2E_TIMINGS = {
  CONFIRMATION_WINDOW: '4s',
  CONFIRMATION_POLL_INTERVAL: '500ms',
  SETTLEMENT_RETRY_SCHEDULE: '500ms',
  SETTLEMENT_POLL_INTERVAL: '500ms',
  SETTLEMENT_REFUND_WATCH: '8s',
  SETTLEMENT_NOT_FOUND_GRACE: '8s',
  SETTLEMENT_REFUND_RECHECK: '15s',
  SANDBOX_REFUND_DELAY: '1s',
  SANDBOX_PROCESSING_TIME: '5s',
  PROVIDER_TIMEOUT: '2s',
  WEBHOOK_RETRY_SCHEDULE: '500ms',
  WEBHOOK_MAX_ATTEMPTS: '3',
  SWEEP_INTERVAL: '2s',
  SWEEP_GRACE: '1s',
  RECONCILIATION_GRACE: '0ms',
};

let running: Promise<RunningSystem> | undefined;

/** One set of real processes shared by every e2e file. */
export function system(): Promise<RunningSystem> {
  running ??= startSystem(E2E_TIMINGS);
  return running;
}

after(async () => {
  if (running) await (await running).stop();
});
