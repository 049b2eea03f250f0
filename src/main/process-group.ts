import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { Logger } from '../logger';

/** This process's place in its group: 0 when it runs alone. */
export function processIndex(): number {
  return Number(process.env.PROCESS_INDEX ?? 0);
}

/** Whether this process is one copy among several (started by a group's primary). */
export function inProcessGroup(): boolean {
  return cluster.isWorker;
}

/** A copy that dies is started again after this pause, doubling while it keeps dying, up to 30 s. */
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A copy that lived this long is healthy again: the next restart waits the first delay. */
const HEALTHY_AFTER_MS = 60_000;

/**
 * The primary of a group of `size` copies of this entrypoint (node:cluster, so HTTP servers of the copies
 * share one port and the primary can gather their metrics). A copy that exits unexpectedly is restarted
 * with back-off; `stop()` sends SIGTERM to every copy and waits for them all. If the primary itself is
 * killed, the copies exit with it (cluster workers leave when their channel to the primary closes).
 */
export function startProcessGroup(options: { size: number; logger: Logger }): { stop(): Promise<void> } {
  const { size, logger } = options;
  let stopping = false;
  const copies = new Map<number, ClusterWorker>();

  function fork(index: number, delayMs: number): void {
    const worker = cluster.fork({ PROCESS_INDEX: String(index) });
    const startedAt = Date.now();
    copies.set(index, worker);
    worker.once('exit', (code, signal) => {
      copies.delete(index);
      if (stopping) return;
      const next = Date.now() - startedAt >= HEALTHY_AFTER_MS ? FIRST_RESTART_DELAY_MS : Math.min(delayMs * 2, MAX_RESTART_DELAY_MS);
      logger.error({ index, code, signal, restartInMs: next }, 'process exited; restarting it');
      setTimeout(() => {
        if (!stopping) fork(index, next);
      }, next).unref();
    });
  }

  for (let index = 0; index < size; index += 1) fork(index, FIRST_RESTART_DELAY_MS / 2);
  logger.info({ processes: size }, 'process group started');

  return {
    async stop() {
      stopping = true;
      await Promise.all(
        [...copies.values()].map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              worker.once('exit', () => resolve());
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
