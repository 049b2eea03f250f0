import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { createAuthService } from '../auth/auth.service';
import { ConfigError, loadConfig, type Config } from '../config';
import { createKnex, migrationConfig, type Db } from '../db';
import { createReencryptionService } from '../encryption/reencryption.service';
import { AppError } from '../errors';
import type { FeeTier } from '../fees/fee-schedule';
import { createFeesService } from '../fees/fees.service';
import { formatTierSpec, parseTierSpec } from '../fees/tier-spec';
import { createIdempotencyRepo } from '../idempotency/idempotency.repo';
import { keyDigest } from '../idempotency/request-hash';
import { createLedgerVerificationRepo } from '../ledger/ledger-verification.repo';
import { createLogger } from '../logger';
import { formatKobo } from '../money';
import { createJobs } from '../contracts/jobs';
import { createOutboxRepo } from '../outbox/outbox.repo';
import { retrySettlementRun } from '../settlements/settlement-restarts';
import { createWorkflowStarter, type WorkflowStarter } from '../outbox/workflow-starter';
import { createPostingEngine } from '../ledger/posting-engine';
import { presentEntry } from '../accounts/entry.presenter';
import { presentException, presentRun } from '../reconciliation/reconciliation.presenter';
import { exceptionFilterSchema } from '../reconciliation/reconciliation.schemas';
import { createReconciliationService, type ReconciliationService } from '../reconciliation/reconciliation.service';
import { createRateLimits } from '../rate-limits/rate-limits';
import { createRetentionService } from '../retention/retention.service';
import { createTemporalClient } from '../temporal/client';
import { MissingSearchAttributesError, registerSearchAttributes } from './register-search-attributes';
import { PasswordInputError, readPassword } from './password-input';

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

/** A command used wrongly: exit 2 with the message, as for a missing option. */
class UsageError extends Error {}

const text = (context: CommandContext, name: string): string => String(context.options[name]);
const optional = (context: CommandContext, name: string): string | undefined => (typeof context.options[name] === 'string' ? String(context.options[name]) : undefined);

function instantOption(context: CommandContext, name: string): Date | undefined {
  const value = optional(context, name);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${name} must be an ISO 8601 timestamp`);
  return date;
}

function cliStarter(context: CommandContext, temporal: Client): WorkflowStarter {
  return createWorkflowStarter({
    client: temporal,
    outbox: createOutboxRepo(context.db),
    logger: createLogger('warn', 'cli', { toStderr: true }),
    options: { taskQueue: context.config.TEMPORAL_TASK_QUEUE, startsPerSecond: context.config.WORKFLOW_START_RATE },
  });
}

function reconciliationService(context: CommandContext, starter: WorkflowStarter): ReconciliationService {
  // The limits are the API's: nothing here consumes them (operator runs are not limited).
  return createReconciliationService({
    db: context.db,
    config: context.config,
    jobs: createJobs(context.config),
    starter,
    postingEngine: createPostingEngine(context.db),
    limits: createRateLimits(context.db, context.config),
  });
}

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
    usage: 'user:create --tenant TENANT_ID --email EMAIL [--json]   (the password is read from stdin, or prompted for on a terminal)',
    options: { tenant: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    required: ['tenant', 'email'],
    async run(context) {
      if (context.options.password !== undefined) {
        throw new UsageError(
          '--password is refused: a password in the arguments is visible to other users (ps) and kept in shell history. Pipe it on stdin (printf %s "$PASSWORD" | … user:create …) or type it at the prompt',
        );
      }
      const auth = createAuthService({ db: context.db, config: context.config });
      const created = await auth.createUser(text(context, 'tenant'), text(context, 'email'), await readPassword('Password for the new dashboard user: '));
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
    usage: 'ledger:verify [--json]   (exit 1 on any mismatch; accounts in deficit are counted, not errors)',
    options: {},
    async run(context) {
      const repo = createLedgerVerificationRepo(context.db);
      const [counts, problems, deficits] = await Promise.all([repo.counts(), repo.problems(), repo.deficits()]);
      const deficitLines = deficits.map((deficit) => `  [deficit] ${deficit.accountRef}: ${formatKobo(BigInt(deficit.balance))} since ${deficit.since.toISOString()}`);
      const human = problems.length
        ? [`${problems.length} problem(s) in ${counts.accounts} accounts / ${counts.entries} entries:`, ...problems.map((problem) => `  [${problem.check}] ${problem.accountRef ?? '-'}: ${problem.detail}`), ...deficitLines].join('\n')
        : [`ledger verified: ${counts.accounts} accounts, ${counts.entries} entries, no mismatch; ${deficits.length} account(s) in deficit`, ...deficitLines].join('\n');
      context.print(human, {
        ...counts,
        problems,
        deficits: deficits.map((deficit) => ({ accountRef: deficit.accountRef, balance: formatKobo(BigInt(deficit.balance)), since: deficit.since.toISOString() })),
      });
      if (problems.length > 0) process.exitCode = 1;
    },
  },
  reconcile: {
    usage: 'reconcile [--from ISO] [--to ISO] [--tenant TENANT_ID] [--no-wait] [--json]   (default: the look-back window up to now; the platform unless --tenant)',
    options: { from: { type: 'string' }, to: { type: 'string' }, tenant: { type: 'string' }, 'no-wait': { type: 'boolean' } },
    async run(context) {
      const temporal = createTemporalClient(context.config);
      try {
        const starter = cliStarter(context, temporal);
        const service = reconciliationService(context, starter);
        const { run, job } = await service.requestOperatorRun(optional(context, 'tenant') ?? null, { from: instantOption(context, 'from'), to: instantOption(context, 'to') });
        // Started here and waited for; a start that fails is left in the outbox for the worker's sweep.
        await starter.start(job);
        await starter.close();
        if (context.options['no-wait']) {
          context.print(`reconciliation run ${run.id} started (workflow ${job.workflowId})`, { run: presentRun(run) });
          return;
        }
        let failure: string | null = null;
        await temporal.workflow
          .getHandle(job.workflowId)
          .result()
          .catch((error: unknown) => {
            failure = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
          });
        const finished = (await service.find(run.id))!;
        const findings = await service.findingsOfRun(run.id, 10_000);
        const byKind = findings.reduce<Record<string, number>>((counts, finding) => ({ ...counts, [finding.kind]: (counts[finding.kind] ?? 0) + 1 }), {});
        const view = presentRun(finished);
        const human = [
          `reconciliation run ${view.ID} ${view.Status}${view.Outcome ? ` (${view.Outcome})` : ''}: ${view.WindowFrom} to ${view.WindowTo}`,
          `  provider transactions ${view.ProviderTransactions}, matched ${view.Matched}, repaired ${view.Repaired}, reported ${view.Reported} (alerts ${view.Alerts}), in flight ${view.InFlight}, lookups ${view.Lookups}, days differing ${view.DaysDiffering ?? '-'}`,
          ...Object.entries(byKind).map(([kind, count]) => `  ${kind}: ${count}`),
          ...(failure ? [`  failed: ${failure}`] : []),
        ].join('\n');
        context.print(human, { run: view, findings: byKind });
        if (view.Status !== 'succeeded') process.exitCode = 1;
      } finally {
        await temporal.connection.close();
      }
    },
  },
  'reconcile:exceptions': {
    usage: 'reconcile:exceptions [--tenant TENANT_ID | --all-tenants] [--status open|repaired|resolved] [--kind KIND] [--json]   (the platform\'s own findings unless --tenant; every tenant\'s and the platform\'s with --all-tenants)',
    options: { tenant: { type: 'string' }, 'all-tenants': { type: 'boolean' }, status: { type: 'string' }, kind: { type: 'string' } },
    async run(context) {
      // The API's filter schema, so the CLI takes exactly the statuses and kinds the dashboard does.
      const filter = exceptionFilterSchema.safeParse({ status: optional(context, 'status'), kind: optional(context, 'kind') });
      if (!filter.success) throw new UsageError(`--${filter.error.issues[0]!.message}`);
      const temporal = createTemporalClient(context.config);
      try {
        if (context.options['all-tenants'] && optional(context, 'tenant')) throw new UsageError('--tenant and --all-tenants cannot go together');
        const service = reconciliationService(context, cliStarter(context, temporal));
        const findings = context.options['all-tenants']
          ? await service.listAllExceptions(filter.data, null, 1_000)
          : await service.listExceptions(optional(context, 'tenant') ?? null, filter.data, null, 1_000);
        const human = findings.length
          ? findings.map((finding) => `${finding.id}  ${finding.status.padEnd(8)} ${finding.severity.padEnd(7)} ${finding.kind}  ${finding.subject}  x${finding.occurrences}  tenant ${finding.tenantId ?? '-'}`).join('\n')
          : 'no reconciliation findings';
        context.print(human, { exceptions: findings.map(presentException) });
      } finally {
        await temporal.connection.close();
      }
    },
  },
  'reconcile:resolve': {
    usage: 'reconcile:resolve --exception ID --note TEXT [--tenant TENANT_ID]   (closes an open finding with a note; the platform\'s own unless --tenant)',
    options: { exception: { type: 'string' }, note: { type: 'string' }, tenant: { type: 'string' } },
    required: ['exception', 'note'],
    async run(context) {
      const temporal = createTemporalClient(context.config);
      try {
        const finding = await reconciliationService(context, cliStarter(context, temporal)).resolve({ via: 'cli', tenantId: optional(context, 'tenant') ?? null }, text(context, 'exception'), text(context, 'note').trim());
        context.print(`resolved ${finding.id} (${finding.kind})`, { exception: presentException(finding) });
      } finally {
        await temporal.connection.close();
      }
      },
    },
  'reconcile:compensate': {
    usage: 'reconcile:compensate --exception ID --tenant TENANT_ID --note TEXT   (posts the compensating debit of a confirmed credit the provider failed or refunded, and resolves the finding)',
    options: { exception: { type: 'string' }, note: { type: 'string' }, tenant: { type: 'string' } },
    required: ['exception', 'tenant', 'note'],
    async run(context) {
      const temporal = createTemporalClient(context.config);
      try {
        const service = reconciliationService(context, cliStarter(context, temporal));
        const { finding, entry } = await service.compensate({ via: 'cli', tenantId: text(context, 'tenant') }, text(context, 'exception'), text(context, 'note').trim());
        context.print(`compensated ${finding.id} with debit ${entry.id} of ${formatKobo(entry.amount)}`, { exception: presentException(finding), entry: presentEntry(entry) });
      } finally {
        await temporal.connection.close();
      }
    },
  },
  'settlement:retry': {
    usage: 'settlement:retry --ref MERCHANT_TX_REF   (a new run of a pending or processing settlement whose run failed for good and was parked; it picks up where the database says it is)',
    options: { ref: { type: 'string' } },
    required: ['ref'],
    async run(context) {
      const temporal = createTemporalClient(context.config);
      const starter = cliStarter(context, temporal);
      try {
        const merchantTxRef = text(context, 'ref').trim();
        const outcome = await retrySettlementRun({ db: context.db, jobs: createJobs(context.config), starter }, merchantTxRef);
        const human = {
          started: `settlement ${merchantTxRef}: a new run started`,
          running: `settlement ${merchantTxRef}: its run is still going; nothing started`,
          closed: `settlement ${merchantTxRef} is no longer pending or processing; nothing started`,
          not_found: `settlement ${merchantTxRef} not found`,
        }[outcome];
        context.print(human, { merchantTxRef, outcome });
        if (outcome !== 'started') process.exitCode = 1;
      } finally {
        await starter.close();
        await temporal.connection.close();
      }
    },
  },
  'retention:run': {
    usage: 'retention:run [--json]   (what the worker\'s retention Schedule runs every RETENTION_INTERVAL)',
    options: {},
    async run(context) {
      const result = await createRetentionService({ db: context.db, config: context.config }).run();
      context.print(
        `retention applied: ${result.unverifiedEventsDeleted} unverified events deleted, ${result.eventPayloadsStripped} event payloads emptied, ${result.startedJobsDeleted} started jobs and ${result.endedSessionsDeleted} ended sessions deleted`,
        { ...result },
      );
    },
  },
  'idempotency:rekey': {
    usage: 'idempotency:rekey [--json]   (once after upgrading: keys the request hashes stored before REQUEST_HASH_SECRET)',
    options: {},
    async run(context) {
      const repo = createIdempotencyRepo(context.db);
      let rekeyed = 0;
      for (let batch = await repo.legacyHashes(1_000); batch.length > 0; batch = await repo.legacyHashes(1_000)) {
        for (const record of batch) await repo.replaceHash(record, keyDigest(context.config.REQUEST_HASH_SECRET, record.request_hash));
        rekeyed += batch.length;
      }
      context.print(`rekeyed ${rekeyed} stored request hash(es)`, { rekeyed });
    },
  },
  'crypto:reencrypt': {
    usage: 'crypto:reencrypt [--json]   (after adding a new key first in DATA_ENCRYPTION_KEYS; exit 1 if any ciphertext does not decrypt)',
    options: {},
    async run(context) {
      const result = await createReencryptionService({ db: context.db, keyring: context.config.DATA_ENCRYPTION_KEYRING }).run();
      const human = [
        `re-encrypted ${result.reencrypted} value(s) with key "${context.config.DATA_ENCRYPTION_KEYRING.current.id}"; ${result.alreadyCurrent} already were`,
        ...result.unreadable.map((where) => `  unreadable: ${where}`),
      ].join('\n');
      context.print(human, { keyId: context.config.DATA_ENCRYPTION_KEYRING.current.id, ...result });
      if (result.unreadable.length > 0) process.exitCode = 1;
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
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    if (error instanceof AppError || error instanceof PasswordInputError) {
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
