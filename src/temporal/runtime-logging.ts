import { Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import type { Logger } from '../logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The SDK's own logs (worker state, workflow task failures) go through our pino logger, and, with
 * `prometheusBindAddress`, its metrics (task latencies, slots, polls, sticky cache) are exported there in
 * Prometheus' format. Call before any Worker exists.
 */
export function installTemporalRuntimeLogging(logger: Logger, options: { prometheusBindAddress?: string } = {}): void {
  const temporalLogger = logger.child({ component: 'temporal-sdk' });
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => temporalLogger[LEVELS[level]](meta ?? {}, message);
  Runtime.install({
    logger: {
      log,
      trace: (message, meta) => log('TRACE', message, meta),
      debug: (message, meta) => log('DEBUG', message, meta),
      info: (message, meta) => log('INFO', message, meta),
      warn: (message, meta) => log('WARN', message, meta),
      error: (message, meta) => log('ERROR', message, meta),
    },
    ...(options.prometheusBindAddress
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress: options.prometheusBindAddress,
                countersTotalSuffix: true,
                useSecondsForDurations: true,
                unitSuffix: true,
              },
            },
          },
        }
      : {}),
  });
}
