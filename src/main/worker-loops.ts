import type { Config } from '../config';
import type { Logger } from '../logger';
import type { ConfirmationBatcher } from '../payment-confirmation/confirmation-batcher';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import type { EventDispatcher } from '../webhooks/event-dispatcher';
import type { BalanceSweepSchedules } from '../balance-sweeps/balance-sweep-schedules';
import type { AccountsService } from '../accounts/accounts.service';
import type { HistoryMonthsService } from '../history/history-months.service';

/** Rows younger than this are the committing process's to start (it kicks them after its commit). */
export const DRAIN_GRACE_MS = 1_000;
/** Rows one drain pass leases. */
const DRAIN_LIMIT = 200;
/** A drain pass gives the loop back after this long, so stopping never waits on a long backlog. */
const DRAIN_BUDGET_MS = 5_000;
/** While the batcher's room is full and credits wait, it looks this often for a batch that ended. */
const BATCH_ROOM_RECHECK_MS = 100;
/** How often the worker marks expired the dynamic accounts past their expiry. */
const ACCOUNT_EXPIRY_INTERVAL_MS = 1_000;
/** After a failed pass (the database or Temporal unreachable), the loop waits this long. */
const ERROR_PAUSE_MS = 5_000;

/**
 * The worker's background loops: housekeeping only, none moves money (no posting, no payout). Work that moves
 * money on a clock runs as a Temporal Schedule (src/workflow-starts/periodic-schedules.ts), visible in the UI and
 * retried there. The confirmation batcher turns queued credits into batch confirmation workflows every
 * CONFIRMATION_BATCH_WINDOW (the workflows confirm or reverse them); the outbox drainer starts every workflow a
 * process committed but did not start (over its start rate, a failed start, a crash), fairly across tenants and
 * by job kind, every OUTBOX_DRAIN_INTERVAL, and goes again at once while work is left. While the batcher's
 * room for open batches is full, it looks again every BATCH_ROOM_RECHECK_MS, so a backlog takes the room
 * a batch leaves at once, not a window later. The event dispatcher turns recorded events into deliveries
 * to subscribed endpoints every EVENT_DISPATCH_INTERVAL, and at once again while more are waiting. The
 * balance sweep schedules loop brings into line, every BALANCE_SWEEP_SCHEDULES_SYNC_INTERVAL, the Temporal Schedule
 * of every sweep changed while its push after the commit could not reach Temporal. The account expiry loop marks expired the dynamic accounts
 * past their expiry every ACCOUNT_EXPIRY_INTERVAL_MS: a status only, since a payment is judged by the account's
 * `expiresAt` itself. The history months loop makes, every HISTORY_MONTHS_INTERVAL, the partitions of the history tables'
 * coming HISTORY_MONTHS_AHEAD months (partition DDL, idempotent: two workers making one month wait for each other).
 */
export function startWorkerLoops(deps: {
  batcher: ConfirmationBatcher;
  starter: WorkflowStarter;
  dispatcher: EventDispatcher;
  balanceSweepSchedules: Pick<BalanceSweepSchedules, 'syncPending'>;
  accounts: Pick<AccountsService, 'expireDue'>;
  historyMonths: Pick<HistoryMonthsService, 'ensureMonths'>;
  config: Pick<
    Config,
    | 'CONFIRMATION_BATCH_WINDOW'
    | 'OUTBOX_DRAIN_INTERVAL'
    | 'EVENT_DISPATCH_INTERVAL'
    | 'BALANCE_SWEEP_SCHEDULES_SYNC_INTERVAL'
    | 'HISTORY_MONTHS_AHEAD'
    | 'HISTORY_MONTHS_INTERVAL'
  >;
  logger: Logger;
}) {
  const { batcher, starter, dispatcher, balanceSweepSchedules, accounts, historyMonths, config, logger } = deps;
  const stopping = new AbortController();
  // A pass that ends after stop() was called finds the signal aborted already, and an aborted signal never fires
  // again: it must not wait out its interval (an hour for the history months).
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const wake = (): void => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      stopping.signal.addEventListener('abort', wake, { once: true });
    });

  /** Runs `pass` until stopped; each pass says how long to pause before the next (0: go again at once). */
  async function loop(name: string, pass: () => Promise<number>): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        const pauseMs = await pass();
        if (pauseMs > 0) await pause(pauseMs);
      } catch (error) {
        if (!stopping.signal.aborted) logger.warn({ err: error, loop: name }, 'background loop failed; trying again shortly');
        await pause(ERROR_PAUSE_MS);
      }
    }
  }

  const running = [
    loop('confirmation batcher', async () => ((await batcher.pass()).roomFull ? BATCH_ROOM_RECHECK_MS : config.CONFIRMATION_BATCH_WINDOW)),
    loop('outbox drainer', async () => {
      const drained = await starter.drain({
        graceMs: DRAIN_GRACE_MS,
        limit: DRAIN_LIMIT,
        budgetMs: DRAIN_BUDGET_MS,
        signal: stopping.signal,
      });
      return drained.found >= DRAIN_LIMIT ? 0 : config.OUTBOX_DRAIN_INTERVAL;
    }),
    loop('event dispatcher', async () => ((await dispatcher.pass()).full ? 0 : config.EVENT_DISPATCH_INTERVAL)),
    loop('balance sweep schedules', async () => {
      await balanceSweepSchedules.syncPending();
      return config.BALANCE_SWEEP_SCHEDULES_SYNC_INTERVAL;
    }),
    loop('account expiry', async () => ((await accounts.expireDue()).full ? 0 : ACCOUNT_EXPIRY_INTERVAL_MS)),
    loop('history months', async () => {
      const made = await historyMonths.ensureMonths(config.HISTORY_MONTHS_AHEAD);
      if (made.length > 0) logger.info({ made }, 'history months made');
      return config.HISTORY_MONTHS_INTERVAL;
    }),
  ];

  return {
    async stop(): Promise<void> {
      stopping.abort();
      await Promise.allSettled(running);
    },
  };
}

export type WorkerLoops = ReturnType<typeof startWorkerLoops>;
