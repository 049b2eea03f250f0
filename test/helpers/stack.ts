import { NativeConnection, Worker } from '@temporalio/worker';
import { eventWebhookSchemas } from '../../src/events/event-catalogue';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createActivities } from '../../src/main/worker-activities';
import type { Config } from '../../src/config';
import type { Db } from '../../src/db';
import { createApp } from '../../src/http/app';
import { answerClientErrorsAsJson } from '../../src/http/client-errors';
import { createLogger } from '../../src/logger';
import {
  closeInfrastructure,
  createInfrastructure,
  createReadiness,
  createRoutes,
  createServices,
  createWorkerStarts,
  listenForApiKeyChanges,
  type Infrastructure,
  type Services,
  type WorkerStarts,
} from '../../src/main/container';
import { REPLICA_READ_PATHS } from '../../src/main/replica-reads';
import { startWorkerLoops, type WorkerLoops } from '../../src/main/worker-loops';
import { ensurePeriodicSchedules, type PeriodicJob } from '../../src/workflow-starts/periodic-schedules';
import { createSandbox, type Sandbox } from '../../src/sandbox/app';
import { temporalConnectionOptions } from '../../src/temporal/connection-options';
import { testConfig } from './config';
import { workflowBundle } from './temporal';

export interface Stack {
  config: Config;
  infra: Infrastructure;
  services: Services;
  sandbox: Sandbox;
  apiUrl: string;
  sandboxUrl: string;
  worker: Worker | null;
  /** The worker's batcher and drainer starter (with a worker only). */
  workerStarts: WorkerStarts | null;
  close(): Promise<void>;
}

async function listening(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The periodic jobs a stack's worker has Schedules for: the money work a worker process runs on a clock. The
 * convergence check, retention and reconciliation Schedules only where a test makes them (they would act on the
 * test's rows at times it does not choose).
 */
const STACK_SCHEDULES: readonly PeriodicJob[] = ['dynamicAccountReturns'];

/**
 * The real API and the real sandbox provider over loopback HTTP, the test database, and (optionally) a
 * worker on the dev server with its loops and STACK_SCHEDULES (deleted when the stack closes). Each stack has its
 * own task queue, so workflows of one test file never run on another file's worker.
 */
export async function startStack(
  overrides: Record<string, string> = {},
  options: { worker?: boolean; clock?: () => number; reconciliationCells?: { reportsUnowned: boolean; others: Db[] } } = {},
): Promise<Stack> {
  const apiServer = http.createServer();
  const sandboxServer = http.createServer();
  const apiUrl = await listening(apiServer);
  const sandboxUrl = await listening(sandboxServer);
  const config = testConfig({
    PROVIDER_BASE_URL: sandboxUrl,
    IDENTITY_VERIFICATION_URL: `${sandboxUrl}/identity/nin`,
    SANDBOX_WEBHOOK_URL: `${apiUrl}/webhooks/provider`,
    TEMPORAL_TASK_QUEUE: `${process.env.TEMPORAL_TASK_QUEUE ?? 'test'}-${randomBytes(4).toString('hex')}`,
    DYNAMIC_ACCOUNT_RETURNS_INTERVAL: '1s',
    // A sweep's Schedule that missed its push is brought in line within a test's wait, not the worker's 5 s.
    BALANCE_SWEEP_SCHEDULES_SYNC_INTERVAL: '250ms',
    ...overrides,
  });
  const logger = createLogger(config.LOG_LEVEL, 'test');
  const sandbox = createSandbox({ config, logger });
  sandboxServer.on('request', sandbox.app.callback());
  const infra = createInfrastructure(config, logger);
  const services = createServices(infra, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.reconciliationCells ? { reconciliationCells: options.reconciliationCells } : {}),
  });
  const keyChanges = listenForApiKeyChanges(infra, services.apiKeyCache);
  const app = createApp({
    config,
    logger,
    auth: services.auth.authenticator,
    readiness: createReadiness(infra),
    routes: createRoutes(services, config),
    webhooks: eventWebhookSchemas(),
    replicaReads: { router: infra.reads, paths: REPLICA_READ_PATHS },
  });
  apiServer.on('request', app.callback());
  answerClientErrorsAsJson(apiServer);

  let worker: Worker | null = null;
  let running: Promise<void> | null = null;
  let connection: NativeConnection | null = null;
  let loops: WorkerLoops | null = null;
  let workerStarts: WorkerStarts | null = null;
  let scheduleIds: string[] = [];
  if (options.worker) {
    connection = await NativeConnection.connect(temporalConnectionOptions(config));
    worker = await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowBundle: await workflowBundle(),
      activities: createActivities({ services, logger, convergenceCheckGraceMs: config.SWEEP_GRACE }),
    });
    running = worker.run();
    // As the worker process does: its batcher and drainer start through its own connection, eagerly.
    workerStarts = createWorkerStarts(infra, connection);
    loops = startWorkerLoops({
      batcher: workerStarts.batcher,
      starter: workerStarts.starter,
      dispatcher: workerStarts.dispatcher,
      balanceSweepSchedules: services.balanceSweepSchedules,
      accounts: services.accounts,
      historyMonths: services.historyMonths,
      config,
      logger,
    });
    scheduleIds = await ensurePeriodicSchedules(infra.temporal, config, STACK_SCHEDULES);
  }

  return {
    config,
    infra,
    services,
    sandbox,
    apiUrl,
    sandboxUrl,
    worker,
    workerStarts,
    async close() {
      await Promise.all(scheduleIds.map((id) => infra.temporal.schedule.getHandle(id).delete()));
      await loops?.stop();
      await workerStarts?.starter.close();
      if (worker && running) {
        worker.shutdown();
        await running;
      }
      await connection?.close();
      await sandbox.close();
      apiServer.closeAllConnections();
      sandboxServer.closeAllConnections();
      await Promise.all([new Promise((resolve) => apiServer.close(resolve)), new Promise((resolve) => sandboxServer.close(resolve))]);
      await services.starter.close();
      await keyChanges.close();
      await closeInfrastructure(infra);
    },
  };
}

export interface TestTenant {
  tenantId: string;
  apiKey: string;
}

export function createTenant(stack: Pick<Stack, 'services'>, name = 'Test Tenant'): Promise<TestTenant> {
  return stack.services.auth.createTenant(name);
}
