import type { Runnable } from 'mocha';

/** The hook or test mocha is running, as test/helpers/reporter.ts (the reporter of every layer) tells it. */
let running: { runnable: Runnable; startedAt: number } | undefined;

export function runnableStarted(runnable: Runnable): void {
  running = { runnable, startedAt: Date.now() };
}

/** How much sooner than mocha's timeout a wait gives up, so that the error reported is the wait's, which says what it waited for. */
const MARGIN_MS = 1_000;

/**
 * When the running hook or test must give up: mocha's timeout for it (the layer's, or the one the suite
 * or test sets), less a margin. Infinity when mocha runs it without a timeout, or runs without the reporter.
 */
export function runnableDeadline(): number {
  if (!running) return Infinity;
  const timeoutMs = running.runnable.timeout();
  // Mocha runs a runnable whose timeout is 0, or past setTimeout's range, without one.
  if (timeoutMs <= 0 || timeoutMs >= 2 ** 31 - 1) return Infinity;
  return running.startedAt + timeoutMs - MARGIN_MS;
}

/** What is left of the running hook or test's time (Infinity without a timeout). */
export function timeLeftMs(): number {
  return Math.max(0, runnableDeadline() - Date.now());
}
