import { z } from 'zod';
import { duration, integer, isLoopbackHost, type Refuse } from './values';

export const metricsEnv = z.object({
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_PORT: integer(9464, 0, 65535),
  WORKER_METRICS_PORT: integer(9465, 0, 65535),
  METRICS_TOKEN: z.string().min(16, { error: 'must be at least 16 characters (openssl rand -hex 16)' }).optional(),
  METRICS_CACHE: duration('5s'),
});

export function refuseOpenMetrics(config: z.output<typeof metricsEnv>, refuse: Refuse): void {
  if (!isLoopbackHost(config.METRICS_HOST) && !config.METRICS_TOKEN) {
    refuse(
      'METRICS_HOST',
      `is ${config.METRICS_HOST}, beyond loopback, without METRICS_TOKEN: set a token (openssl rand -hex 16) or keep /metrics on 127.0.0.1`,
    );
  }
}
