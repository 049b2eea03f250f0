import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPLICA_READ_PATHS } from './replica-reads';
import { eventWebhookSchemas } from '../events/event-catalogue';
import { createCellDispatcher } from '../clusters/cell-dispatch';
import { createRequestTenants } from '../clusters/request-tenants';
import { createKnex } from '../db';
import { createLedgerPipelineReads } from '../ledger/ledger-reads';
import { createApp } from '../http/app';
import { answerClientErrorsAsJson } from '../http/client-errors';
import { startApiMetrics } from '../metrics/api-metrics';
import { groupMetrics, shareMetricsWithPrimary } from '../metrics/cluster-metrics';
import type { MetricsServer } from '../metrics/metrics-server';
import { collectProcessMetrics } from '../metrics/registry';
import {
  closeCellInfrastructures,
  createCellInfrastructures,
  createDirectory,
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
    // One app per cluster (cell), each with its own services; with several, a front hands each request to its tenant's.
    const infras = createCellInfrastructures(config, logger);
    const infra = infras[0]!;
    collectProcessMetrics(infra.metrics.registry);
    // In a group, the primary serves /metrics, gathering every copy's: answer its requests from the start.
    if (inProcessGroup()) shareMetricsWithPrimary(infra.metrics.registry);
    const cells = infras.map((cellInfra) => {
      const services = createServices(cellInfra);
      const keyChanges = listenForApiKeyChanges(cellInfra, services.apiKeyCache);
      const app = createApp({
        config: cellInfra.config,
        logger: cellInfra.logger,
        auth: services.auth.authenticator,
        readiness: createReadiness(cellInfra),
        routes: createRoutes(services, cellInfra.config),
        webhooks: eventWebhookSchemas(),
        replicaReads: { router: cellInfra.reads, paths: REPLICA_READ_PATHS },
      });
      return { infra: cellInfra, services, keyChanges, handle: app.callback() };
    });
    const directory = createDirectory(config, logger);
    const placementChanges = directory?.listen();
    const handler: RequestListener = directory
      ? createCellDispatcher({
          cells: cells.map(({ infra: cellInfra, services, handle }, index) => ({
            name: config.CLUSTERS[index]!.name,
            handle,
            auth: { ...services.auth.authenticator, tenantsSignedInBy: services.auth.tenantsSignedInBy },
            tenants: createRequestTenants(cellInfra.db),
            signInAttempt: (address) => services.rateLimits.signInAddress.consume(address),
          })),
          directory,
          logger,
          trustProxy: config.TRUST_PROXY,
        })
      : cells[0]!.handle;
    const server = createServer(handler).listen(config.PORT, config.HOST);
    answerClientErrorsAsJson(server);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    server.keepAliveTimeout = 65_000;
    logger.info(
      { port: (server.address() as AddressInfo).port, clusters: config.CLUSTERS.map((cluster) => cluster.name) },
      'api listening',
    );
    const metrics: MetricsServer | null = inProcessGroup()
      ? null
      : await startApiMetrics({
          config,
          clusters: infras.map((cellInfra, index) => ({
            name: config.CLUSTERS[index]!.name,
            db: cellInfra.db,
            ledger: createLedgerPipelineReads(cellInfra.db),
          })),
          logger,
          processMetrics: () => infra.metrics.registry.metrics(),
        });
    return {
      async stop() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await metrics?.close();
        for (const cell of cells) {
          await cell.services.starter.close();
          await cell.keyChanges.close();
        }
        await placementChanges?.close();
        await directory?.close();
        await closeCellInfrastructures(infras);
      },
    };
  },
  {
    group: {
      size: (config) => config.API_PROCESSES,
      // The primary serves no API requests: it supervises the copies and serves the group's /metrics.
      primary: async (config, logger) => {
        const dbs = config.CLUSTERS.map((cluster) =>
          createKnex(
            { ...config, DATABASE_URL: cluster.databaseUrl, DATABASE_POOL_MAX: 2 },
            logger.child({ component: 'db', cluster: cluster.name }),
          ),
        );
        const metrics = await startApiMetrics({
          config,
          clusters: config.CLUSTERS.map((cluster, index) => ({
            name: cluster.name,
            db: dbs[index]!,
            ledger: createLedgerPipelineReads(dbs[index]!),
          })),
          logger,
          processMetrics: groupMetrics(),
        });
        return {
          async stop() {
            await metrics.close();
            await Promise.all(dbs.map((db) => db.destroy()));
          },
        };
      },
    },
  },
);
