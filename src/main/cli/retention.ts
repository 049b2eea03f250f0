import type { Command } from './command';

export const retentionCommands: Record<string, Command> = {
  'retention:run': {
    everyCluster: true,
    usage: "retention:run [--json]   (what the worker's retention Schedule runs every RETENTION_INTERVAL)",
    options: {},
    async run(context) {
      const result = await context.services.retention.run();
      context.print(
        `retention applied: ${result.unverifiedEventsDeleted} unverified events deleted, ${result.eventPayloadsStripped} event payloads emptied, ${result.startedJobsDeleted} started jobs, ${result.endedSessionsDeleted} ended sessions and ${result.unsettledBalanceSweepRunsDeleted} balance sweep runs that moved nothing deleted`,
        { ...result },
      );
    },
  },
};
