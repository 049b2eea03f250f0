import { AggregatorRegistry, Registry } from 'prom-client';
import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { createPipelineMetrics } from './pipeline.metrics';
import { createPipelineRepo, type LedgerPipelineReads } from './pipeline.repo';

/** One cluster whose pipeline the API's /metrics reads. */
export interface PipelineCluster {
  name: string;
  db: Db;
  /** The ledger's figures of the pipeline, read by the ledger (src/main/ passes them in). */
  ledger: LedgerPipelineReads;
}

/**
 * The API's /metrics: the pipeline read from Postgres, and the API processes' own metrics from `processMetrics` (one
 * process's registry, or every cluster worker's aggregated by the primary). With several clusters of tenants each
 * cluster's pipeline is read and its figures carry a `cluster` label; with one they are as they always were.
 */
export async function startApiMetrics(deps: {
  config: Pick<Config, 'METRICS_HOST' | 'METRICS_PORT' | 'METRICS_TOKEN' | 'METRICS_CACHE'>;
  clusters: PipelineCluster[];
  logger: Logger;
  processMetrics: () => Promise<string>;
}): Promise<MetricsServer> {
  const { config, clusters, logger, processMetrics } = deps;
  const registries = clusters.map((cluster) => {
    const registry = new Registry();
    if (clusters.length > 1) registry.setDefaultLabels({ cluster: cluster.name });
    createPipelineMetrics({
      repo: createPipelineRepo(cluster.db, cluster.ledger),
      registry,
      cacheMs: config.METRICS_CACHE,
      logger: logger.child({ component: 'pipeline-metrics', cluster: cluster.name }),
    });
    return registry;
  });
  // Each family once, its samples from every cluster told apart by their label.
  const pipelineMetrics = async (): Promise<string> =>
    registries.length === 1
      ? registries[0]!.metrics()
      : AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON()))).metrics();
  return startMetricsServer({
    host: config.METRICS_HOST,
    port: config.METRICS_PORT,
    token: config.METRICS_TOKEN,
    logger: logger.child({ component: 'metrics' }),
    render: async () => {
      const [own, pipeline] = await Promise.all([processMetrics(), pipelineMetrics()]);
      return `${own}\n${pipeline}`;
    },
  });
}
