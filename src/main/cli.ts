import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import { controlMigrationConfig, createKnex, migrationConfig, type Db } from '../db';
import { AppError } from '../errors';
import { createLogger } from '../logger';
import { MissingSearchAttributesError } from './register-search-attributes';
import { dbCommands } from './cli/db';
import { feeCommands } from './cli/fees';
import { keyCommands } from './cli/keys';
import { ledgerCommands } from './cli/ledger';
import { reconciliationCommands } from './cli/reconciliation';
import { retentionCommands } from './cli/retention';
import { historyCommands } from './cli/history';
import { settlementCommands } from './cli/settlements';
import { temporalCommands } from './cli/temporal';
import { tenantCommands } from './cli/tenants';
import { tenantMoveCommands } from './cli/tenant-move';
import { UsageError, type Command } from './cli/command';
import type { TenantDirectory } from '../clusters/tenant-directory';
import { closeCellInfrastructures, createCellInfrastructures, createDirectory, createServices, type Infrastructure } from './container';
import { PasswordInputError } from './password-input';

/** In the order `usage` lists them. */
const COMMANDS: Record<string, Command> = {
  ...dbCommands,
  ...tenantCommands,
  ...tenantMoveCommands,
  ...feeCommands,
  ...ledgerCommands,
  ...reconciliationCommands,
  ...settlementCommands,
  ...retentionCommands,
  ...historyCommands,
  ...keyCommands,
  ...temporalCommands,
};

/** Run against an older schema, a command's queries would fail on a missing table or column with Postgres's words, not ours. */
async function refuseUnmigratedDatabase(db: Db, migrations = migrationConfig, which = 'the database'): Promise<void> {
  const [, pending] = (await db.migrate.list(migrations)) as [unknown[], { file: string }[]];
  if (pending.length === 0) return;
  throw new UnmigratedDatabaseError(
    `${which} lacks ${pending.length} migration(s) (the newest: ${pending.at(-1)!.file}); run \`npm run -s cli -- db:migrate\` first`,
  );
}

/** The cluster a command runs on: the one `--cluster` names, else the one `--tenant` lives on, else the first. */
async function chosenCluster(
  infras: Infrastructure[],
  directory: TenantDirectory | null,
  options: Record<string, unknown>,
): Promise<Infrastructure> {
  const names = infras[0]!.config.CLUSTERS.map((cluster) => cluster.name);
  const named = typeof options.cluster === 'string' ? options.cluster : undefined;
  if (named !== undefined) {
    const index = names.indexOf(named);
    if (index < 0) throw new UsageError(`--cluster: no cluster named "${named}" (clusters: ${names.join(', ')})`);
    return infras[index]!;
  }
  if (directory && typeof options.tenant === 'string' && /^[0-9a-f-]{36}$/i.test(options.tenant))
    return infras[names.indexOf(await directory.clusterOf(options.tenant))] ?? infras[0]!;
  return infras[0]!;
}

/** A platform-wide command with several clusters and neither --cluster nor --tenant: it runs on each. */
function onEveryCluster(command: Command, infras: Infrastructure[], options: Record<string, unknown>): boolean {
  return command.everyCluster === true && infras.length > 1 && options.cluster === undefined && options.tenant === undefined;
}

class UnmigratedDatabaseError extends Error {}

function usage(): string {
  return [
    'usage: npm run -s cli -- <command> [options]',
    '  (with several DATABASE_CLUSTERS, a command runs on --cluster NAME, else on the cluster of its --tenant, else on the first;',
    `   the platform-wide ones, ${Object.keys(COMMANDS)
      .filter((name) => COMMANDS[name]!.everyCluster)
      .join(', ')}, on every cluster, each answer under its cluster's name)`,
    '',
    ...Object.values(COMMANDS).map((command) => `  ${command.usage}`),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `unknown command: ${name}\n` : ''}${usage()}\n`);
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { cluster: { type: 'string' }, ...command.options, json: { type: 'boolean' } },
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${command.usage}\n`);
    return 2;
  }
  const missing = (command.required ?? []).filter((option) => typeof parsed.values[option] !== 'string' || parsed.values[option] === '');
  if (missing.length > 0) {
    process.stderr.write(`missing ${missing.map((option) => `--${option}`).join(', ')}\nusage: ${command.usage}\n`);
    return 2;
  }
  // The services the API and the worker run, on a pool of two per cluster: one command at a time needs no more.
  const config = { ...loadConfig(), DATABASE_POOL_MAX: 2 };
  const logger = createLogger('warn', 'cli', { toStderr: true });
  const infras = createCellInfrastructures(config, logger);
  const directory = createDirectory(config, logger, 1);
  const json = Boolean(parsed.values.json);
  try {
    const clusters = infras.map((cellInfra, index) => {
      let services: ReturnType<typeof createServices> | undefined;
      return { name: config.CLUSTERS[index]!.name, db: cellInfra.db, services: () => (services ??= createServices(cellInfra)) };
    });
    const targets = onEveryCluster(command, infras, parsed.values) ? infras : [await chosenCluster(infras, directory, parsed.values)];
    if (command.needsMigratedDatabase !== false) {
      for (const infra of targets) await refuseUnmigratedDatabase(infra.db);
      if (directory) {
        const control = createKnex({ DATABASE_URL: config.CONTROL_DATABASE_URL, DATABASE_POOL_MAX: 1 });
        await refuseUnmigratedDatabase(control, controlMigrationConfig, 'the control database').finally(() => control.destroy());
      }
    }
    for (const infra of targets) {
      // Over every cluster each answer says whose it is: a heading line, or a `cluster` field on each JSON line.
      const cluster = targets.length > 1 ? clusters[infras.indexOf(infra)]!.name : null;
      await command.run({
        config: infra.config,
        db: infra.db,
        temporal: infra.temporal,
        services: clusters[infras.indexOf(infra)]!.services(),
        clusters,
        directory,
        options: parsed.values as Record<string, string | boolean | undefined>,
        print: (human, data) => {
          const line = json ? JSON.stringify(cluster ? { cluster, ...data } : data) : cluster ? `cluster ${cluster}:\n${human}` : human;
          process.stdout.write(`${line}\n`);
        },
      });
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    if (error instanceof AppError || error instanceof PasswordInputError || error instanceof UnmigratedDatabaseError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await directory?.close();
    await closeCellInfrastructures(infras);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(process.exitCode ?? code),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof MissingSearchAttributesError) process.stderr.write(`${error.message}\n`);
    else createLogger('error', 'cli', { toStderr: true }).error({ err: error }, 'command failed');
    process.exit(1);
  },
);
