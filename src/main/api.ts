import type { AddressInfo } from 'node:net';
import { REPLICA_READ_PATHS } from './replica-reads';
import { eventWebhookSchemas } from '../events/event-catalogue';
import { Registry } from 'prom-client';
import { createKnex } from '../db';
import { createLedgerPipelineReads } from '../ledger/ledger-reads';
import { createApp } from '../http/app';
import { answerClientErrorsAsJson } from '../http/client-errors';
import { startApiMetrics } from '../metrics/api-metrics';
import { groupMetrics, shareMetricsWithPrimary } from '../metrics/cluster-metrics';
import type { MetricsServer } from '../metrics/metrics-server';
import { collectProcessMetrics } from '../metrics/registry';
import {
  closeInfrastructure,
  createInfrastructure,
  createReadiness,
  createRoutes,
  createServices,
  listenForApiKeyChanges,
} from './container';
import { runProcess } from './lifecycle';
import { inProcessGroup } from './process-group';

runProcess(
  'api',
  async (config, logger) => {
    const infra = createInfrastructure(config, logger);
    collectProcessMetrics(infra.metrics.registry);
    // In a group, the primary serves /metrics, gathering every copy's: answer its requests from the start.
    if (inProcessGroup()) shareMetricsWithPrimary(infra.metrics.registry);
    const services = createServices(infra);
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
    const server = app.listen(config.PORT, config.HOST);
    answerClientErrorsAsJson(server);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    server.keepAliveTimeout = 65_000;
    logger.info({ port: (server.address() as AddressInfo).port }, 'api listening');
    const metrics: MetricsServer | null = inProcessGroup()
      ? null
      : await startApiMetrics({
          config,
          db: infra.db,
          ledger: createLedgerPipelineReads(infra.db),
          logger,
          pipelineRegistry: new Registry(),
          processMetrics: () => infra.metrics.registry.metrics(),
        });
    return {
      async stop() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await metrics?.close();
        await services.starter.close();
        await keyChanges.close();
        await closeInfrastructure(infra);
      },
    };
  },
  {
    group: {
      size: (config) => config.API_PROCESSES,
      // The primary serves no API requests: it supervises the copies and serves the group's /metrics.
      primary: async (config, logger) => {
        const db = createKnex({ ...config, DATABASE_POOL_MAX: 2 }, logger.child({ component: 'db' }));
        const metrics = await startApiMetrics({
          config,
          db,
          ledger: createLedgerPipelineReads(db),
          logger,
          pipelineRegistry: new Registry(),
          processMetrics: groupMetrics(),
        });
        return {
          async stop() {
            await metrics.close();
            await db.destroy();
          },
        };
      },
    },
  },
);
