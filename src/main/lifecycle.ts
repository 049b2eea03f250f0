import { ConfigError, loadConfig, type Config } from '../config';
import { createLogger, type Logger } from '../logger';

export interface Running {
  stop(): Promise<void>;
}

/**
 * Runs a process entrypoint: config parsed once (bad variables named, exit 1; `refuse` may still
 * decline the configuration, with its reason), and SIGTERM/SIGINT
 * stopping it cleanly, with a hard exit if shutdown hangs.
 */
export function runProcess(name: string, start: (config: Config, logger: Logger) => Promise<Running>, options: { refuse?: (config: Config) => string | null } = {}): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const refusal = options.refuse?.(config);
  if (refusal) {
    process.stderr.write(`${name}: ${refusal}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.LOG_LEVEL, name);
  let running: Running | undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 15_000).unref();
    void (running?.stop() ?? Promise.resolve()).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  start(config, logger).then(
    (started) => {
      running = started;
    },
    (error: unknown) => {
      logger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    },
  );
}
