import { parseArgs } from 'node:util';
import { createAuthService } from '../auth/auth.service';
import { ConfigError, loadConfig, type Config } from '../config';
import { createKnex, migrationConfig, type Db } from '../db';
import { AppError } from '../errors';
import type { FeeTier } from '../fees/fee-schedule';
import { createFeesService } from '../fees/fees.service';
import { formatTierSpec, parseTierSpec } from '../fees/tier-spec';
import { createLedgerVerificationRepo } from '../ledger/ledger-verification.repo';
import { createLogger } from '../logger';
import { formatKobo } from '../money';
import { createTemporalClient } from '../temporal/client';
import { MissingSearchAttributesError, registerSearchAttributes } from '../temporal/register-search-attributes';

interface CommandContext {
  config: Config;
  db: Db;
  options: Record<string, string | boolean | undefined>;
  print(human: string, json: Record<string, unknown>): void;
}

interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  required?: string[];
  run(context: CommandContext): Promise<void>;
}

const text = (context: CommandContext, name: string): string => String(context.options[name]);

const tierView = (tier: FeeTier) => ({ minSend: formatKobo(tier.minSend), maxSend: tier.maxSend === null ? null : formatKobo(tier.maxSend), fee: formatKobo(tier.fee) });

const COMMANDS: Record<string, Command> = {
  'db:migrate': {
    usage: 'db:migrate',
    options: {},
    async run(context) {
      const [batch, applied] = await context.db.migrate.latest(migrationConfig);
      context.print(applied.length ? `applied ${applied.length} migration(s) in batch ${batch}` : 'database is up to date', { batch, applied });
    },
  },
  'db:rollback': {
    usage: 'db:rollback [--all]',
    options: { all: { type: 'boolean' } },
    async run(context) {
      const [batch, reverted] = await context.db.migrate.rollback(migrationConfig, Boolean(context.options.all));
      context.print(`rolled back ${reverted.length} migration(s)`, { batch, reverted });
    },
  },
  'tenant:create': {
    usage: 'tenant:create --name NAME [--json]',
    options: { name: { type: 'string' } },
    required: ['name'],
    async run(context) {
      const created = await createAuthService({ db: context.db, config: context.config }).createTenant(text(context, 'name'));
      context.print(`tenant ${created.tenantId}\napi key (shown once): ${created.apiKey}`, created);
    },
  },
  'apikey:create': {
    usage: 'apikey:create --tenant TENANT_ID [--json]',
    options: { tenant: { type: 'string' } },
    required: ['tenant'],
    async run(context) {
      const tenantId = text(context, 'tenant');
      const apiKey = await createAuthService({ db: context.db, config: context.config }).createApiKey(tenantId);
      context.print(`api key (shown once): ${apiKey}`, { tenantId, apiKey });
    },
  },
  'apikey:revoke': {
    usage: 'apikey:revoke --key-prefix PREFIX',
    options: { 'key-prefix': { type: 'string' } },
    required: ['key-prefix'],
    async run(context) {
      const revoked = await createAuthService({ db: context.db, config: context.config }).revokeApiKey(text(context, 'key-prefix'));
      context.print(`revoked the key of tenant ${revoked.tenantId}`, { revoked: true, ...revoked });
    },
  },
  'user:create': {
    usage: 'user:create --tenant TENANT_ID --email EMAIL --password PASSWORD [--json]',
    options: { tenant: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    required: ['tenant', 'email', 'password'],
    async run(context) {
      const created = await createAuthService({ db: context.db, config: context.config }).createUser(text(context, 'tenant'), text(context, 'email'), text(context, 'password'));
      context.print(`dashboard user ${created.userId}`, created);
    },
  },
  'fees:show': {
    usage: 'fees:show [--json]',
    options: {},
    async run(context) {
      const tiers = await createFeesService({ db: context.db, config: context.config }).tiers();
      context.print(formatTierSpec(tiers), { tiers: tiers.map(tierView) });
    },
  },
  'fees:set': {
    usage: 'fees:set --tiers "0-4999.99:10,5000-50000:25,50000.01-:50" (naira: MIN-MAX:FEE, the last tier open-ended)',
    options: { tiers: { type: 'string' } },
    required: ['tiers'],
    async run(context) {
      const fees = createFeesService({ db: context.db, config: context.config });
      await fees.replaceTiers(parseTierSpec(text(context, 'tiers')));
      const tiers = await fees.tiers();
      context.print(`fee tiers now ${formatTierSpec(tiers)}`, { tiers: tiers.map(tierView) });
    },
  },
  'ledger:verify': {
    usage: 'ledger:verify [--json]   (exit 1 on any mismatch)',
    options: {},
    async run(context) {
      const repo = createLedgerVerificationRepo(context.db);
      const [counts, problems] = await Promise.all([repo.counts(), repo.problems()]);
      const human = problems.length
        ? [`${problems.length} problem(s) in ${counts.accounts} accounts / ${counts.entries} entries:`, ...problems.map((problem) => `  [${problem.check}] ${problem.accountRef ?? '-'}: ${problem.detail}`)].join('\n')
        : `ledger verified: ${counts.accounts} accounts, ${counts.entries} entries, no mismatch`;
      context.print(human, { ...counts, problems });
      if (problems.length > 0) process.exitCode = 1;
    },
  },
  'temporal:setup': {
    usage: 'temporal:setup',
    options: {},
    async run(context) {
      const client = createTemporalClient(context.config);
      try {
        const added = await registerSearchAttributes(client.connection, context.config.TEMPORAL_NAMESPACE);
        context.print(added.length ? `registered search attributes: ${added.join(', ')}` : 'search attributes already registered', { added });
      } finally {
        await client.connection.close();
      }
    },
  },
};

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
  const config = loadConfig();
  const db = createKnex({ ...config, DATABASE_POOL_MAX: 2 });
  const json = Boolean(parsed.values.json);
  try {
    await command.run({
      config,
      db,
      options: parsed.values as Record<string, string | boolean | undefined>,
      print: (human, data) => process.stdout.write(`${json ? JSON.stringify(data) : human}\n`),
    });
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await db.destroy();
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
