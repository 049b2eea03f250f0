import type { Config } from '../config';
import type { Db } from '../db';
import { createRetentionRepo } from './retention.repo';
import type { RetentionResult } from '../contracts/retention.contract';

type RetentionConfig = Pick<
  Config,
  'RETENTION_INBOUND_PAYLOADS' | 'RETENTION_UNVERIFIED_EVENTS' | 'RETENTION_HOUSEKEEPING' | 'RETENTION_BALANCE_SWEEP_RUNS'
>;

const BATCH = 1_000;

/**
 * Keeps the growing tables bounded: run by a Temporal Schedule from the worker and by
 * `retention:run`. It never touches the ledger, settlements (nor the balance sweep runs that made them),
 * deliveries, idempotency keys, or the row of a verified provider event (whose request id is what makes
 * a redelivery a duplicate).
 */
export function createRetentionService(deps: { db: Db; config: RetentionConfig }) {
  const { db, config } = deps;
  const repo = createRetentionRepo(db);

  async function drain(step: (batch: number) => Promise<number>, onProgress: () => void): Promise<number> {
    let total = 0;
    for (;;) {
      const changed = await step(BATCH);
      total += changed;
      onProgress();
      if (changed < BATCH) return total;
    }
  }

  return {
    async run(options: { now?: Date; onProgress?: () => void } = {}): Promise<RetentionResult> {
      const now = (options.now ?? new Date()).getTime();
      const onProgress = options.onProgress ?? (() => undefined);
      const ago = (ms: number): Date => new Date(now - ms);
      return {
        unverifiedEventsDeleted: await drain(
          (batch) => repo.deleteUnverifiedEvents(ago(config.RETENTION_UNVERIFIED_EVENTS), batch),
          onProgress,
        ),
        eventPayloadsStripped: await drain((batch) => repo.stripEventPayloads(ago(config.RETENTION_INBOUND_PAYLOADS), batch), onProgress),
        startedJobsDeleted: await drain((batch) => repo.deleteStartedJobs(ago(config.RETENTION_HOUSEKEEPING), batch), onProgress),
        endedSessionsDeleted: await drain((batch) => repo.deleteEndedSessions(ago(config.RETENTION_HOUSEKEEPING), batch), onProgress),
        unsettledBalanceSweepRunsDeleted: await drain(
          (batch) => repo.deleteUnsettledBalanceSweepRuns(ago(config.RETENTION_BALANCE_SWEEP_RUNS), batch),
          onProgress,
        ),
      };
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
