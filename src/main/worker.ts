import { NativeConnection, Worker } from '@temporalio/worker';
import { hostname } from 'node:os';
import { createActivities } from './worker-activities';
import type { Config } from '../config';
import { ensurePeriodicSchedules } from '../workflow-starts/periodic-schedules';
import { startWorkerLoops } from './worker-loops';
import type { Logger } from '../logger';
import { temporalConnectionOptions } from '../temporal/connection-options';
import { freeLoopbackPort } from '../metrics/free-port';
import { collectProcessMetrics } from '../metrics/registry';
import { startWorkerMetrics } from '../metrics/worker-metrics';
import { registerSearchAttributes } from './register-search-attributes';
import { installTemporalRuntimeLogging } from '../temporal/runtime-logging';
import { workerTuning } from '../temporal/worker-tuning';
import { workflowSource } from './workflow-bundle';
import { closeInfrastructure, createInfrastructure, createServices, createWorkerStarts } from './container';
import { runProcess } from './lifecycle';
import { limitHeapGrowth } from './worker-heap';
import { lowerCpuPriority } from './cpu-priority';
import { inProcessGroup, processIndex } from './process-group';

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

/**
 * The SDK's own metrics exporter binds a port it cannot report back: a free port is chosen first, and
 * another one if something took it in between (the install throws "address already in use").
 */
async function installRuntimeWithMetrics(logger: Logger): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const address = `127.0.0.1:${await freeLoopbackPort()}`;
    try {
      installTemporalRuntimeLogging(logger, { prometheusBindAddress: address });
      return address;
    } catch (error) {
      if (attempt >= 5 || !/in use/i.test(String(error))) throw error;
    }
  }
}

runProcess(
  'worker',
  async (config, logger) => {
    limitHeapGrowth(config);
    lowerCpuPriority(config, logger);
    const index = processIndex();
    const sdkMetricsAddress = await installRuntimeWithMetrics(logger);
    const infra = createInfrastructure(config, logger);
    collectProcessMetrics(infra.metrics.registry);
    const services = createServices(infra);
    const connection = await connectWhenReachable(config, logger);
    // One copy of a group does the namespace-wide setup; the others only poll.
    if (index === 0) await registerSearchAttributes(infra.temporal.connection, config.TEMPORAL_NAMESPACE);
    const worker = await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      ...workflowSource(logger),
      ...workerTuning(config),
      // "<primary pid>.<copy>/<pid>@host" in a group, so the group is recognisable among the task queue's pollers.
      ...(inProcessGroup() ? { identity: `${process.ppid}.${index}/${process.pid}@${hostname()}` } : {}),
      activities: createActivities({ services, logger, convergenceCheckGraceMs: config.SWEEP_GRACE }),
    });
    // One copy of a group ensures the periodic jobs' Schedules (docs/operations.md lists them).
    const schedules = index === 0 ? { schedules: await ensurePeriodicSchedules(infra.temporal, config) } : {};
    // Each copy of a group has its own port: WORKER_METRICS_PORT + its index (0 stays "any free port").
    const metrics = await startWorkerMetrics({
      config,
      port: config.WORKER_METRICS_PORT === 0 ? 0 : config.WORKER_METRICS_PORT + index,
      registry: infra.metrics.registry,
      sdkMetricsUrl: `http://${sdkMetricsAddress}/metrics`,
      logger,
    });
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, ...schedules, metricsPort: metrics.port }, 'worker running');
    const running = worker.run();
    const workerStarts = createWorkerStarts(infra, connection);
    const loops = startWorkerLoops({
      batcher: workerStarts.batcher,
      starter: workerStarts.starter,
      dispatcher: workerStarts.dispatcher,
      balanceSweepSchedules: services.balanceSweepSchedules,
      accounts: services.accounts,
      config,
      logger,
    });
    return {
      async stop() {
        await loops.stop();
        await workerStarts.starter.close();
        await services.starter.close();
        worker.shutdown();
        await running;
        await metrics.close();
        await connection.close();
        await closeInfrastructure(infra);
      },
    };
  },
  { group: { size: (config) => config.WORKER_PROCESSES } },
);
