import type { Registry } from 'prom-client';
import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { createPipelineMetrics } from './pipeline.metrics';
import { createPipelineRepo, type LedgerPipelineReads } from './pipeline.repo';

/**
 * The API's /metrics: the pipeline read from Postgres (`pipelineRegistry`), and the API processes' own
 * metrics from `processMetrics` (one process's registry, or every cluster worker's aggregated by the primary).
 */
export async function startApiMetrics(deps: {
  config: Pick<Config, 'METRICS_HOST' | 'METRICS_PORT' | 'METRICS_TOKEN' | 'METRICS_CACHE'>;
  db: Db;
  /** The ledger's figures of the pipeline, read by the ledger (src/main/ passes them in). */
  ledger: LedgerPipelineReads;
  logger: Logger;
  pipelineRegistry: Registry;
  processMetrics: () => Promise<string>;
}): Promise<MetricsServer> {
  const { config, db, ledger, logger, pipelineRegistry, processMetrics } = deps;
  createPipelineMetrics({
    repo: createPipelineRepo(db, ledger),
    registry: pipelineRegistry,
    cacheMs: config.METRICS_CACHE,
    logger: logger.child({ component: 'pipeline-metrics' }),
  });
  return startMetricsServer({
    host: config.METRICS_HOST,
    port: config.METRICS_PORT,
    token: config.METRICS_TOKEN,
    logger: logger.child({ component: 'metrics' }),
    render: async () => {
      const [own, pipeline] = await Promise.all([processMetrics(), pipelineRegistry.metrics()]);
      return `${own}\n${pipeline}`;
    },
  });
}
