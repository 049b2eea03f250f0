import type { Registry } from 'prom-client';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { startMetricsServer, type MetricsServer } from './metrics-server';

/**
 * A worker process's /metrics: its own registry (provider calls, Node process) followed by the Temporal
 * SDK's metrics, which the SDK's core exports on a loopback port of its own (`sdkMetricsUrl`).
 */
export function startWorkerMetrics(deps: {
  config: Pick<Config, 'METRICS_HOST' | 'WORKER_METRICS_PORT' | 'METRICS_TOKEN'>;
  port: number;
  registry: Registry;
  sdkMetricsUrl: string;
  logger: Logger;
}): Promise<MetricsServer> {
  const { config, registry, sdkMetricsUrl, logger } = deps;
  return startMetricsServer({
    host: config.METRICS_HOST,
    port: deps.port,
    token: config.METRICS_TOKEN,
    logger: logger.child({ component: 'metrics' }),
    render: async () => {
      const sdk = await fetch(sdkMetricsUrl, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => (response.ok ? response.text() : ''),
        () => '',
      );
      return `${await registry.metrics()}\n${sdk}`;
    },
  });
}
