import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import { migrationConfig, type Db } from '../db';
import { AppError } from '../errors';
import { createLogger } from '../logger';
import { MissingSearchAttributesError } from './register-search-attributes';
import { dbCommands } from './cli/db';
import { feeCommands } from './cli/fees';
import { keyCommands } from './cli/keys';
import { ledgerCommands } from './cli/ledger';
import { reconciliationCommands } from './cli/reconciliation';
import { retentionCommands } from './cli/retention';
import { settlementCommands } from './cli/settlements';
import { temporalCommands } from './cli/temporal';
import { tenantCommands } from './cli/tenants';
import { UsageError, type Command } from './cli/command';
import { closeInfrastructure, createInfrastructure, createServices } from './container';
import { PasswordInputError } from './password-input';

/** In the order `usage` lists them. */
const COMMANDS: Record<string, Command> = {
  ...dbCommands,
  ...tenantCommands,
  ...feeCommands,
  ...ledgerCommands,
  ...reconciliationCommands,
  ...settlementCommands,
  ...retentionCommands,
  ...keyCommands,
  ...temporalCommands,
};

/** Run against an older schema, a command's queries would fail on a missing table or column with Postgres's words, not ours. */
async function refuseUnmigratedDatabase(db: Db): Promise<void> {
  const [, pending] = (await db.migrate.list(migrationConfig)) as [unknown[], { file: string }[]];
  if (pending.length === 0) return;
  throw new UnmigratedDatabaseError(
    `the database lacks ${pending.length} migration(s) (the newest: ${pending.at(-1)!.file}); run \`npm run -s cli -- db:migrate\` first`,
  );
}

class UnmigratedDatabaseError extends Error {}

function usage(): string {
  return ['usage: npm run -s cli -- <command> [options]', '', ...Object.values(COMMANDS).map((command) => `  ${command.usage}`)].join('\n');
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
    parsed = parseArgs({ args: rest, options: { ...command.options, json: { type: 'boolean' } }, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${command.usage}\n`);
    return 2;
  }
  const missing = (command.required ?? []).filter((option) => typeof parsed.values[option] !== 'string' || parsed.values[option] === '');
  if (missing.length > 0) {
    process.stderr.write(`missing ${missing.map((option) => `--${option}`).join(', ')}\nusage: ${command.usage}\n`);
    return 2;
  }
  // The services the API and the worker run, on a pool of two: one command at a time needs no more.
  const config = { ...loadConfig(), DATABASE_POOL_MAX: 2 };
  const infra = createInfrastructure(config, createLogger('warn', 'cli', { toStderr: true }));
  const json = Boolean(parsed.values.json);
  try {
    if (command.needsMigratedDatabase !== false) await refuseUnmigratedDatabase(infra.db);
    await command.run({
      config,
      db: infra.db,
      temporal: infra.temporal,
      services: createServices(infra),
      options: parsed.values as Record<string, string | boolean | undefined>,
      print: (human, data) => process.stdout.write(`${json ? JSON.stringify(data) : human}\n`),
    });
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
    await closeInfrastructure(infra);
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
