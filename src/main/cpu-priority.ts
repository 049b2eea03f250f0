import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { Config } from '../config';
import type { Logger } from '../logger';

/**
 * The worker's work is asynchronous (a confirmation has minutes, a delivery retries), while a webhook's
 * answer is awaited by the provider: where they share a machine, the worker runs at a lower CPU priority
 * (WORKER_NICE, a Unix nice value; 0 leaves it as started) and takes the cores whenever the API and
 * Postgres leave them idle. Linux keeps a nice value per thread and a new thread inherits its creator's,
 * so every thread the process has now is lowered (V8's helpers among them) before the Temporal runtime
 * and the workflow threads are made. Lowering needs no privilege; a thread already lower is left, and a
 * failure leaves the priority as it was.
 */
export function lowerCpuPriority(config: Pick<Config, 'WORKER_NICE'>, logger: Logger): void {
  if (config.WORKER_NICE === 0) return;
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0]; // no /proc: the calling process
  }
  for (const thread of threads) {
    try {
      // Already lower (started niced): raising it back would need privilege, and is not the point.
      if (getPriority(thread) < config.WORKER_NICE) setPriority(thread, config.WORKER_NICE);
    } catch (error) {
      logger.warn({ err: error, thread }, 'could not lower the worker thread CPU priority');
    }
  }
}
