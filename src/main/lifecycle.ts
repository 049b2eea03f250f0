import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from '../config';
import { createLogger, type Logger } from '../logger';
import { processIndex, startProcessGroup } from './process-group';

export interface Running {
  stop(): Promise<void>;
}

interface GroupOptions {
  /** How many copies of the process to run (1: this process does the work itself). */
  size: (config: Config) => number;
  /** What the group's primary does besides supervising the copies (the API serves the aggregated metrics). */
  primary?: (config: Config, logger: Logger) => Promise<Running>;
}

/** Several copies: the primary supervises them (and runs `group.primary`); one copy: the work itself. */
async function startRole(
  config: Config,
  logger: Logger,
  start: (config: Config, logger: Logger) => Promise<Running>,
  group: GroupOptions | undefined,
): Promise<Running> {
  const size = group?.size(config) ?? 1;
  if (size <= 1 || !cluster.isPrimary) return start(config, logger);
  const copies = startProcessGroup({ size, logger });
  const extra = await group?.primary?.(config, logger);
  return {
    async stop() {
      await Promise.all([copies.stop(), extra?.stop()]);
    },
  };
}

/**
 * Runs a process entrypoint: config parsed once (bad variables named, exit 1; `refuse` may still
 * decline the configuration, with its reason), and SIGTERM/SIGINT
 * stopping it cleanly, with a hard exit if shutdown hangs.
 */
export function runProcess(
  name: string,
  start: (config: Config, logger: Logger) => Promise<Running>,
  options: { refuse?: (config: Config) => string | null; group?: GroupOptions } = {},
): void {
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
  const root = createLogger(config.LOG_LEVEL, name);
  const logger = cluster.isWorker ? root.child({ process: processIndex() }) : root;
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
  startRole(config, logger, start, options.group).then(
    (started) => {
      running = started;
    },
    (error: unknown) => {
      logger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    },
  );
}
