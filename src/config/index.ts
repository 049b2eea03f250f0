import { z } from 'zod';
import { createKeyring } from '../crypto';
import { authEnv, refuseWeakPasswordHashing } from './auth';
import { balanceSweepsEnv } from './balance-sweeps';
import { clustersEnv, clustersOf } from './clusters';
import { databaseEnv } from './database';
import { historyEnv } from './history';
import { kycLimitsEnv } from './kyc-limits';
import { limitsEnv } from './limits';
import { metricsEnv, refuseOpenMetrics } from './metrics';
import { paymentsEnv } from './payments';
import { providerEnv, refusePublishedWebhookSecrets, refuseSandboxProvider } from './provider';
import { reconciliationEnv } from './reconciliation';
import { retentionEnv } from './retention';
import { sandboxEnv } from './sandbox';
import { refusePublishedEncryptionKeys, refusePublishedRequestHashSecret, secretsEnv } from './secrets';
import { serverEnv } from './server';
import { settlementEnv } from './settlement';
import { checkTemporalTls, refuseUnprotectedTemporal, temporalEnv } from './temporal';
import { refusePrivateCallbacks, webhooksEnv } from './webhooks';
import { workerEnv } from './worker';

export type { RateLimit } from './limits';
export { DEFAULT_CLUSTER, type ClusterSettings } from './clusters';
import type { ClusterSettings } from './clusters';
export type { TierLimits } from './kyc-limits';

/** Every environment variable, one schema: each concern's variables are declared in its own module. */
const configSchema = z
  .object({
    ...serverEnv.shape,
    ...databaseEnv.shape,
    ...clustersEnv.shape,
    ...temporalEnv.shape,
    ...workerEnv.shape,
    ...metricsEnv.shape,
    ...authEnv.shape,
    ...secretsEnv.shape,
    ...providerEnv.shape,
    ...limitsEnv.shape,
    ...paymentsEnv.shape,
    ...webhooksEnv.shape,
    ...settlementEnv.shape,
    ...balanceSweepsEnv.shape,
    ...kycLimitsEnv.shape,
    ...reconciliationEnv.shape,
    ...retentionEnv.shape,
    ...historyEnv.shape,
    ...sandboxEnv.shape,
  })
  // Refuses to start with anything that only makes sense locally, unless development settings are
  // explicitly allowed (never with NODE_ENV=production): forgetting NODE_ENV must not open a hole.
  // Published secrets (anyone can sign a webhook or read the data with them) are relaxed only where
  // NODE_ENV says development or test as well: for them an unset NODE_ENV is production, so a deployment
  // that kept the switch but dropped NODE_ENV still refuses them.
  // Every offending variable is named in the one message (runProcess prints it and exits 1 before listening).
  .superRefine((config, ctx) => {
    checkTemporalTls(config, ctx);
    const developmentAllowed = config.ALLOW_DEVELOPMENT_SETTINGS && config.NODE_ENV !== 'production';
    const publishedSecretsAllowed = developmentAllowed && config.NODE_ENV !== undefined;
    let refused = false;
    const refuse = (variable: string, message: string) => {
      refused = true;
      ctx.addIssue({ code: 'custom', path: [variable], message });
    };
    if (!publishedSecretsAllowed) {
      refusePublishedEncryptionKeys(config, refuse);
      refusePublishedWebhookSecrets(config, refuse);
      refusePublishedRequestHashSecret(config, refuse);
    }
    if (!developmentAllowed) {
      refuseSandboxProvider(config, refuse);
      refusePrivateCallbacks(config, refuse);
      refuseWeakPasswordHashing(config, refuse);
      refuseOpenMetrics(config, refuse);
      refuseUnprotectedTemporal(config, refuse);
    }
    if (refused && developmentAllowed) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          'published secrets are refused while NODE_ENV is unset: on a development machine only, set NODE_ENV=development beside ALLOW_DEVELOPMENT_SETTINGS=true',
      });
    } else if (refused && config.NODE_ENV !== 'production') {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          'these are the production checks, on by default: on a development machine only, ALLOW_DEVELOPMENT_SETTINGS=true (with NODE_ENV=development) relaxes them',
      });
    }
  })
  // Without DATA_ENCRYPTION_KEYS, DATA_ENCRYPTION_KEY is a ring of one key named "default". With DATABASE_CLUSTERS,
  // DATABASE_URL is the first cluster's (what reads one database, the group's metrics, reads that one), and the
  // directory of placements defaults to it too: one cluster needs nothing new.
  .transform((config) => ({
    ...config,
    DATABASE_URL: config.DATABASE_CLUSTERS?.[0]?.databaseUrl ?? config.DATABASE_URL,
    CLUSTERS: clustersOf(config),
    CONTROL_DATABASE_URL: config.CONTROL_DATABASE_URL ?? clustersOf(config)[0]!.databaseUrl,
    NODE_ENV: config.NODE_ENV ?? (config.ALLOW_DEVELOPMENT_SETTINGS ? 'development' : 'production'),
    DATA_ENCRYPTION_KEYRING: createKeyring(config.DATA_ENCRYPTION_KEYS ?? [{ id: 'default', key: config.DATA_ENCRYPTION_KEY }]),
  }));

export type Config = Readonly<z.output<typeof configSchema>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Empty strings count as unset, so `FOO= npm start` falls back to the default. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''),
  );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(config)'}: ${issue.message}`));
  }
  return Object.freeze(parsed.data);
}

/** What one cell's services see: its cluster's database and its own task queue, everything else shared. */
export function cellConfig(config: Config, cluster: ClusterSettings): Config {
  // DATABASE_REPLICA_URL is a replica of the first cluster: the others read from their own primaries.
  const replicaUrl = cluster.name === config.CLUSTERS[0]!.name ? config.DATABASE_REPLICA_URL : undefined;
  return Object.freeze({
    ...config,
    DATABASE_URL: cluster.databaseUrl,
    TEMPORAL_TASK_QUEUE: cluster.taskQueue,
    DATABASE_REPLICA_URL: replicaUrl,
  });
}
