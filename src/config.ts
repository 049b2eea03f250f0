import { accessSync, constants } from 'node:fs';
import { z } from 'zod';
import { isIP } from 'node:net';
import { createKeyring, type EncryptionKey } from './crypto';
import { isPrivateAddress } from './net/address-policy';
import { parseDuration, parseDurationList } from './duration';
import { parseNairaInput } from './money';

/** The development key is public: production refuses to start with it. */
const DEV_ENCRYPTION_KEY = 'ZGV2LW9ubHkta2V5LWRvLW5vdC11c2UtaW4tcHJvZCE=';
/** Public too, for the same reason. */
const DEV_REQUEST_HASH_SECRET = 'dev-only-request-hash-secret-do-not-use-in-prod';
const DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET = 'sk_sandbox_provider_local_dev';
const SANDBOX_CLIENT = { PROVIDER_CLIENT_ID: 'sandbox-client', PROVIDER_CLIENT_SECRET: 'sandbox-secret', PROVIDER_ACCOUNT_ID: 'sandbox-account' } as const;

/**
 * Secret values that appear in this repository (defaults, docker-compose.yml, the docs' examples):
 * anyone can read them, so production refuses every one of them, whichever variable holds it.
 */
export const REPOSITORY_EXAMPLE_SECRETS: readonly string[] = [
  DEV_ENCRYPTION_KEY,
  'UADzT4+TdL/7B8uttdNNfjndg3KO7uXtNEpRaFnqpJE=',
  DEV_REQUEST_HASH_SECRET,
  DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET,
  'change-me-provider-webhook-secret',
];

/** A listen address only this machine can reach. */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * Why a URL cannot be a production provider endpoint, or null: it must be https and name a public
 * host (not loopback, a private or reserved address, or a single-label name such as a compose service).
 */
function notAPublicEndpoint(raw: string): string | null {
  const url = new URL(raw);
  if (url.protocol !== 'https:') return 'must be an https URL in production (the sandbox is not the provider)';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const internal = isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
  return internal ? 'must not point at a loopback, private or internal host in production (the sandbox is not the provider)' : null;
}

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `expected a duration such as 500ms, 20s, 2m or 1h, got "${text}"` });
        return z.NEVER;
      }
      return ms;
    });

const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const list = parseDurationList(text);
      if (list === null) {
        ctx.addIssue({ code: 'custom', message: `expected comma-separated durations such as 2m,5m,11m, got "${text}"` });
        return z.NEVER;
      }
      return list;
    });

export interface RateLimit {
  points: number;
  durationSeconds: number;
}

/** "N/duration" (e.g. 10/15m: ten in any fifteen minutes), or "off". */
const rateLimit = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx): RateLimit | null => {
      if (text === 'off') return null;
      const [count, window] = text.split('/');
      const points = Number(count);
      const ms = window === undefined ? null : parseDuration(window);
      if (!Number.isSafeInteger(points) || points < 1 || ms === null || ms < 1000 || ms % 1000 !== 0) {
        ctx.addIssue({ code: 'custom', message: `expected N/duration in whole seconds such as 10/15m, or off, got "${text}"` });
        return z.NEVER;
      }
      return { points, durationSeconds: ms / 1000 };
    });

const integer = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((text) => ['true', '1', 'yes'].includes(text));

const optionalFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .optional()
  .transform((text) => (text === undefined ? undefined : ['true', '1', 'yes'].includes(text)));

/** A path this process can read now: a missing certificate stops the start with its variable named. */
const readableFile = z.string().refine(
  (path) => {
    try {
      accessSync(path, constants.R_OK);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'expected a readable file' },
);

const url = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);

/** Unset means "the Temporal SDK's own default" (it sizes some of them to the machine). */
const optionalInteger = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

const nairaCeiling = z
  .string()
  .default('100000000.00')
  .transform((text, ctx) => {
    const kobo = parseNairaInput(text);
    if (kobo === null || kobo <= 0n) {
      ctx.addIssue({ code: 'custom', message: 'expected a positive naira amount such as 100000000.00' });
      return z.NEVER;
    }
    return kobo;
  });

const encryptionKey = z
  .string()
  .default(DEV_ENCRYPTION_KEY)
  .transform((text, ctx) => {
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'expected 32 bytes encoded as base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return key;
  });

/** "id:base64key,id:base64key": the first encrypts, all decrypt. */
const encryptionKeyList = z
  .string()
  .optional()
  .transform((text, ctx): EncryptionKey[] | null => {
    if (text === undefined) return null;
    const keys: EncryptionKey[] = [];
    for (const entry of text.split(',').map((part) => part.trim())) {
      const [id, encoded] = entry.split(':');
      const key = Buffer.from(encoded ?? '', 'base64');
      if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32 || keys.some((other) => other.id === id)) {
        ctx.addIssue({ code: 'custom', message: 'expected id:key pairs, comma-separated, newest first (ids of letters, digits, - and _, unique; keys of 32 bytes in base64)' });
        return z.NEVER;
      }
      keys.push({ id, key });
    }
    return keys;
  });

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    HOST: z.string().default('0.0.0.0'),
    PORT: integer(3000, 0, 65535),
    PUBLIC_URL: z.url().optional(),
    TRUST_PROXY: flag(false),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // Unset: on outside production (the OpenAPI document cannot drift), off in production (no cost per request).
    RESPONSE_SCHEMA_CHECKS: z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .optional()
      .transform((text) => (text === undefined ? undefined : ['true', '1', 'yes'].includes(text))),
    DATABASE_URL: z.string().min(1).default('postgres://ledger:ledger@127.0.0.1:5432/ledger'),
    DATABASE_POOL_MAX: integer(20, 1, 500),
    TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('ledger'),
    /** Unset: TLS whenever a CA, client certificate, server name or API key is given. */
    TEMPORAL_TLS: optionalFlag,
    TEMPORAL_TLS_CA: readableFile.optional(),
    TEMPORAL_TLS_CERT: readableFile.optional(),
    TEMPORAL_TLS_KEY: readableFile.optional(),
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    TEMPORAL_UI_URL: url('http://localhost:8233'),
    WORKFLOW_START_RATE: integer(25, 1, 100_000),
    API_PROCESSES: integer(1, 1, 64),
    WORKER_PROCESSES: integer(1, 1, 64),
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_PORT: integer(9464, 0, 65535),
    WORKER_METRICS_PORT: integer(9465, 0, 65535),
    METRICS_TOKEN: z.string().min(16, { error: 'must be at least 16 characters (openssl rand -hex 16)' }).optional(),
    METRICS_CACHE: duration('5s'),
    API_KEY_CACHE_TTL: duration('60s'),
    PAYMENT_POSTING_GROUP_MAX: integer(64, 1, 500),
    PAYMENT_POSTING_STATEMENTS: integer(2, 1, 100),
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: optionalInteger(1, 10_000),
    WORKER_MAX_CONCURRENT_ACTIVITIES: optionalInteger(1, 10_000),
    WORKER_MAX_CACHED_WORKFLOWS: optionalInteger(0, 1_000_000),
    WORKER_WORKFLOW_TASK_POLLERS: optionalInteger(2, 1_000),
    WORKER_ACTIVITY_TASK_POLLERS: optionalInteger(1, 1_000),
    WORKER_STICKY_QUEUE_TIMEOUT: duration('10s'),
    WORKER_HEAP_GROWING_PERCENT: integer(50, 0, 1_000),
    WORKER_NICE: integer(10, 0, 19),
    PROVIDER_BASE_URL: url('http://127.0.0.1:4010'),
    PROVIDER_CLIENT_ID: z.string().min(1).default(SANDBOX_CLIENT.PROVIDER_CLIENT_ID),
    PROVIDER_CLIENT_SECRET: z.string().min(1).default(SANDBOX_CLIENT.PROVIDER_CLIENT_SECRET),
    PROVIDER_ACCOUNT_ID: z.string().min(1).default(SANDBOX_CLIENT.PROVIDER_ACCOUNT_ID),
    PROVIDER_TIMEOUT: duration('10s'),
    PROVIDER_WEBHOOKS_SIGNING_SECRET: z.string().min(16).default(DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET),
    /** The secret being rotated out: also accepted until it is unset. */
    PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET: z.string().min(16).optional(),
    BANK_LIST_TTL: duration('1h'),
    IDENTITY_VERIFICATION_URL: url('http://127.0.0.1:4010/identity/nin'),
    IDENTITY_VERIFICATION_TIMEOUT: duration('5s'),
    DATA_ENCRYPTION_KEY: encryptionKey,
    DATA_ENCRYPTION_KEYS: encryptionKeyList,
    REQUEST_HASH_SECRET: z.string().min(32, { error: 'must be at least 32 characters (openssl rand -base64 32)' }).default(DEV_REQUEST_HASH_SECRET),
    SESSION_TTL: duration('12h'),
    SESSION_IDLE_TIMEOUT: duration('30m'),
    PASSWORD_SCRYPT_LOG_N: integer(17, 14, 20),
    RATE_LIMIT_SIGNIN_EMAIL: rateLimit('10/15m'),
    RATE_LIMIT_SIGNIN_ADDRESS: rateLimit('100/15m'),
    RATE_LIMIT_NAME_LOOKUPS: rateLimit('3000/1m'),
    RATE_LIMIT_SETTLEMENTS: rateLimit('60000/1m'),
    RATE_LIMIT_REPLAYS: rateLimit('600/1m'),
    RATE_LIMIT_RECONCILIATION_RUNS: rateLimit('6/1h'),
    PASSWORD_HASH_CONCURRENCY: integer(2, 1, 16),
    PASSWORD_HASH_QUEUE: integer(32, 0, 10_000),
    MAX_AMOUNT: nairaCeiling,
    WEBHOOK_RETRY_SCHEDULE: durationList('2m,5m,11m,24m,53m'),
    WEBHOOK_MAX_ATTEMPTS: integer(5, 1, 50),
    WEBHOOK_TIMEOUT: duration('10s'),
    ALLOW_PRIVATE_CALLBACK_URLS: flag(false),
    SETTLEMENT_FUNDS: z.enum(['ledger', 'available']).default('ledger'),
    SETTLEMENT_MAX_ATTEMPTS: integer(5, 1, 50),
    SETTLEMENT_RETRY_SCHEDULE: durationList('30s,1m,2m,5m'),
    SETTLEMENT_POLL_INTERVAL: duration('5s'),
    SETTLEMENT_REFUND_WATCH: duration('24h'),
    SETTLEMENT_NOT_FOUND_GRACE: duration('5m'),
    SETTLEMENT_REFUND_RECHECK: duration('1h'),
    SETTLEMENT_FAILED_REFERENCE_WATCH: duration('72h'),
    SETTLEMENT_WATCH_MAX_INTERVAL: duration('1h'),
    SETTLEMENT_WATCH_LOOKUPS: integer(100, 1, 10_000),
    CONFIRMATION_WINDOW: duration('30m'),
    CONFIRMATION_POLL_INTERVAL: duration('2s'),
    CONFIRMATION_MIN_NOT_FOUND_LOOKUPS: integer(3, 1, 100),
    CONFIRMATION_BATCH_MAX: integer(64, 1, 500),
    CONFIRMATION_BATCH_WINDOW: duration('500ms'),
    CONFIRMATION_BATCHES_PER_WORKER: integer(16, 1, 10_000),
    OUTBOX_DRAIN_INTERVAL: duration('250ms'),
    RECONCILIATION_INTERVAL: duration('1h'),
    RECONCILIATION_LOOKBACK: duration('48h'),
    RECONCILIATION_GRACE: duration('5m'),
    RECONCILIATION_PAGE_SIZE: integer(500, 1, 1000),
    RECONCILIATION_STUCK_SETTLEMENT: duration('2h'),
    RECONCILIATION_MAX_LOOKUPS: integer(1000, 0, 1_000_000),
    RECONCILIATION_PROVIDER_ATTEMPTS: integer(6, 1, 50),
    RECONCILIATION_MAX_WINDOW: duration('31d'),
    RETENTION_INBOUND_PAYLOADS: duration('90d'),
    RETENTION_UNVERIFIED_EVENTS: duration('30d'),
    RETENTION_HOUSEKEEPING: duration('30d'),
    RETENTION_INTERVAL: duration('1h'),
    SWEEP_INTERVAL: duration('1m'),
    SWEEP_GRACE: duration('10s'),
    SANDBOX_PORT: integer(4010, 0, 65535),
    SANDBOX_WEBHOOK_URL: url('http://127.0.0.1:3000/webhooks/provider'),
    SANDBOX_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
    SANDBOX_LATENCY: duration('0ms'),
    SANDBOX_REFUND_DELAY: duration('5s'),
    SANDBOX_PROCESSING_TIME: duration('30s'),
    SANDBOX_LOOKUP_LAG: duration('0ms'),
    SANDBOX_DUPLICATE_REFERENCE: z.enum(['original', 'conflict', 'described']).default('original'),
    SANDBOX_THROTTLE_RATE: z.coerce.number().min(0).max(1).default(0),
    SANDBOX_RETRY_AFTER: duration('1s'),
  })
  // Production refuses to start with anything that only makes sense locally; every offending
  // variable is named in the one message (runProcess prints it and exits 1 before listening).
  .superRefine((config, ctx) => {
    if ((config.TEMPORAL_TLS_CERT === undefined) !== (config.TEMPORAL_TLS_KEY === undefined)) {
      ctx.addIssue({ code: 'custom', path: [config.TEMPORAL_TLS_CERT ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT'], message: 'mTLS needs both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY' });
    }
    if (config.TEMPORAL_TLS === false && (config.TEMPORAL_TLS_CA || config.TEMPORAL_TLS_CERT || config.TEMPORAL_TLS_SERVER_NAME)) {
      ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: 'is false, but TLS settings are given' });
    }
    if (config.NODE_ENV !== 'production') return;
    const refuse = (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });
    const example = (encoded: string) => REPOSITORY_EXAMPLE_SECRETS.some((secret) => secret === encoded || (secret.endsWith('=') && Buffer.from(secret, 'base64').equals(Buffer.from(encoded, 'base64'))));
    if (config.DATA_ENCRYPTION_KEYS) {
      if (config.DATA_ENCRYPTION_KEYS.some((entry) => example(entry.key.toString('base64')))) refuse('DATA_ENCRYPTION_KEYS', 'holds a key published in this repository');
    } else if (example(config.DATA_ENCRYPTION_KEY.toString('base64'))) {
      refuse('DATA_ENCRYPTION_KEY', 'must be set in production to a key of your own (this one is published in the repository)');
    }
    for (const variable of ['PROVIDER_WEBHOOKS_SIGNING_SECRET', 'REQUEST_HASH_SECRET'] as const) {
      if (example(config[variable])) refuse(variable, 'must be set in production to a secret of your own (this one is published in the repository)');
    }
    if (config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET && example(config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET)) {
      refuse('PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET', 'is published in the repository: anyone could sign webhooks with it');
    }
    for (const variable of ['PROVIDER_BASE_URL', 'IDENTITY_VERIFICATION_URL'] as const) {
      const problem = notAPublicEndpoint(config[variable]);
      if (problem) refuse(variable, problem);
    }
    for (const [variable, sandboxValue] of Object.entries(SANDBOX_CLIENT) as Array<[keyof typeof SANDBOX_CLIENT, string]>) {
      if (config[variable] === sandboxValue) refuse(variable, "is the sandbox's value: set the provider's in production");
    }
    if (config.ALLOW_PRIVATE_CALLBACK_URLS) refuse('ALLOW_PRIVATE_CALLBACK_URLS', 'must be false in production (callbacks to private addresses are an SSRF hole)');
    if (config.PASSWORD_SCRYPT_LOG_N < 17) refuse('PASSWORD_SCRYPT_LOG_N', 'must be at least 17 in production (OWASP)');
    if (!isLoopbackHost(config.METRICS_HOST) && !config.METRICS_TOKEN) {
      refuse('METRICS_HOST', `is ${config.METRICS_HOST}, beyond loopback, without METRICS_TOKEN: set a token (openssl rand -hex 16) or keep /metrics on 127.0.0.1`);
    }
  })
  // Without DATA_ENCRYPTION_KEYS, DATA_ENCRYPTION_KEY is a ring of one key named "default".
  .transform((config) => ({
    ...config,
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
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(config)'}: ${issue.message}`));
  }
  return Object.freeze(parsed.data);
}
