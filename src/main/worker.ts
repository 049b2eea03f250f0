import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { Config } from '../config';
import { ensureRetentionSchedule } from '../jobs/retention-schedule';
import { ensureSweepSchedule } from '../jobs/sweep-schedule';
import type { Logger } from '../logger';
import { ensureReconciliationSchedule } from '../reconciliation/reconciliation-schedule';
import { temporalConnectionOptions } from '../temporal/connection-options';
import { registerSearchAttributes } from '../temporal/register-search-attributes';
import { installTemporalRuntimeLogging } from '../temporal/runtime-logging';
import { closeInfrastructure, createInfrastructure, createServices } from './container';
import { runProcess } from './lifecycle';

/** The worker waits for Temporal rather than dying, so a supervisor (or npm start) need not restart it. */
async function connectWhenReachable(config: Config, logger: Logger): Promise<NativeConnection> {
  for (let delay = 500; ; delay = Math.min(delay * 2, 10_000)) {
    try {
      return await NativeConnection.connect(temporalConnectionOptions(config));
    } catch (error) {
      logger.warn({ err: error, retryInMs: delay }, 'temporal unreachable; retrying');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

runProcess('worker', async (config, logger) => {
  installTemporalRuntimeLogging(logger);
  const infra = createInfrastructure(config, logger);
  const services = createServices(infra);
  const connection = await connectWhenReachable(config, logger);
  await registerSearchAttributes(infra.temporal.connection, config.TEMPORAL_NAMESPACE);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: require.resolve('../../workflows'),
    activities: createActivities({ services, logger, sweepGraceMs: config.SWEEP_GRACE }),
  });
  const scheduleId = await ensureSweepSchedule(infra.temporal, { taskQueue: config.TEMPORAL_TASK_QUEUE, intervalMs: config.SWEEP_INTERVAL });
  const retentionId = await ensureRetentionSchedule(infra.temporal, { taskQueue: config.TEMPORAL_TASK_QUEUE, intervalMs: config.RETENTION_INTERVAL });
  const reconciliationScheduleId = await ensureReconciliationSchedule(infra.temporal, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    intervalMs: config.RECONCILIATION_INTERVAL,
    lookBackMs: config.RECONCILIATION_LOOKBACK,
    graceMs: config.RECONCILIATION_GRACE,
    providerAttempts: config.RECONCILIATION_PROVIDER_ATTEMPTS,
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, scheduleId, retentionId, reconciliationScheduleId }, 'worker running');
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await closeInfrastructure(infra);
    },
  };
});
