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
import { closeCellInfrastructures, createCellInfrastructures, createServices, createWorkerStarts } from './container';
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
    // One cell per cluster: its pool and services, a Worker on its task queue, its loops and its Schedules. Nothing a
    // cell does reaches another cell's database: an activity finds its cluster by the task queue it was polled from.
    const infras = createCellInfrastructures(config, logger);
    const infra = infras[0]!;
    collectProcessMetrics(infra.metrics.registry);
    const connection = await connectWhenReachable(config, logger);
    // One copy of a group does the namespace-wide setup; the others only poll.
    if (index === 0) await registerSearchAttributes(infra.temporal.connection, config.TEMPORAL_NAMESPACE);
    const source = workflowSource(logger);
    const cells = await Promise.all(
      infras.map(async (cellInfra, cellIndex) => {
        // The cells share one provider wallet: each platform reconciliation takes the rows its cluster places, and the
        // first cell's also those no cluster places, asking the other cells' pools which rows they place.
        const services = createServices(
          cellInfra,
          infras.length > 1
            ? {
                reconciliationCells: {
                  reportsUnowned: cellIndex === 0,
                  others: infras.filter((other) => other !== cellInfra).map((other) => other.db),
                },
              }
            : {},
        );
        const worker = await Worker.create({
          connection,
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: cellInfra.config.TEMPORAL_TASK_QUEUE,
          ...source,
          ...workerTuning(config),
          // "<primary pid>.<copy>/<pid>@host" in a group, so the group is recognisable among the task queue's pollers.
          ...(inProcessGroup() ? { identity: `${process.ppid}.${index}/${process.pid}@${hostname()}` } : {}),
          activities: createActivities({ services, logger: cellInfra.logger, convergenceCheckGraceMs: config.SWEEP_GRACE }),
        });
        // One copy of a group ensures the periodic jobs' Schedules (docs/operations.md lists them), once per cell: their ids
        // carry the task queue, so each cluster's sweeps, retention and reconciliation run on that cluster.
        const schedules = index === 0 ? await ensurePeriodicSchedules(infra.temporal, cellInfra.config) : [];
        return { infra: cellInfra, services, worker, schedules };
      }),
    );
    // Each copy of a group has its own port: WORKER_METRICS_PORT + its index (0 stays "any free port").
    const metrics = await startWorkerMetrics({
      config,
      port: config.WORKER_METRICS_PORT === 0 ? 0 : config.WORKER_METRICS_PORT + index,
      registry: infra.metrics.registry,
      sdkMetricsUrl: `http://${sdkMetricsAddress}/metrics`,
      logger,
    });
    logger.info(
      {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        ...(cells.length > 1 ? { taskQueues: cells.map((cell) => cell.infra.config.TEMPORAL_TASK_QUEUE) } : {}),
        ...(index === 0 ? { schedules: cells.flatMap((cell) => cell.schedules) } : {}),
        metricsPort: metrics.port,
      },
      'worker running',
    );
    const running = cells.map((cell) => {
      const run = cell.worker.run();
      const workerStarts = createWorkerStarts(cell.infra, connection);
      const loops = startWorkerLoops({
        batcher: workerStarts.batcher,
        starter: workerStarts.starter,
        dispatcher: workerStarts.dispatcher,
        balanceSweepSchedules: cell.services.balanceSweepSchedules,
        accounts: cell.services.accounts,
        historyMonths: cell.services.historyMonths,
        config,
        logger: cell.infra.logger,
      });
      return { ...cell, run, workerStarts, loops };
    });
    return {
      async stop() {
        await Promise.all(running.map((cell) => cell.loops.stop()));
        for (const cell of running) {
          await cell.workerStarts.starter.close();
          await cell.services.starter.close();
          // On SIGINT or SIGTERM the Temporal runtime has begun shutting its Workers down already.
          if (cell.worker.getState() === 'RUNNING') cell.worker.shutdown();
        }
        await Promise.all(running.map((cell) => cell.run));
        await metrics.close();
        await connection.close();
        await closeCellInfrastructures(infras);
      },
    };
  },
  { group: { size: (config) => config.WORKER_PROCESSES } },
);
