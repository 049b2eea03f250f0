import { z } from 'zod';
import { parseDuration, parseDurationList } from './duration';
import { parseNairaInput } from './money';

/** The development key is public: production refuses to start with it. */
const DEV_ENCRYPTION_KEY = 'ZGV2LW9ubHkta2V5LWRvLW5vdC11c2UtaW4tcHJvZCE=';

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

const integer = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((text) => ['true', '1', 'yes'].includes(text));

const url = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);

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

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    HOST: z.string().default('0.0.0.0'),
    PORT: integer(3000, 0, 65535),
    PUBLIC_URL: z.url().optional(),
    TRUST_PROXY: flag(false),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATABASE_URL: z.string().min(1).default('postgres://ledger:ledger@127.0.0.1:5432/ledger'),
    DATABASE_POOL_MAX: integer(20, 1, 500),
    TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('ledger'),
    TEMPORAL_UI_URL: url('http://localhost:8233'),
    WORKFLOW_START_RATE: integer(25, 1, 100_000),
    PROVIDER_BASE_URL: url('http://127.0.0.1:4010'),
    PROVIDER_CLIENT_ID: z.string().min(1).default('sandbox-client'),
    PROVIDER_CLIENT_SECRET: z.string().min(1).default('sandbox-secret'),
    PROVIDER_ACCOUNT_ID: z.string().min(1).default('sandbox-account'),
    PROVIDER_TIMEOUT: duration('10s'),
    PROVIDER_WEBHOOKS_SIGNING_SECRET: z.string().min(16).default('sk_sandbox_provider_local_dev'),
    BANK_LIST_TTL: duration('1h'),
    IDENTITY_VERIFICATION_URL: url('http://127.0.0.1:4010/identity/nin'),
    IDENTITY_VERIFICATION_TIMEOUT: duration('5s'),
    DATA_ENCRYPTION_KEY: encryptionKey,
    SESSION_TTL: duration('12h'),
    MAX_AMOUNT: nairaCeiling,
    WEBHOOK_RETRY_SCHEDULE: durationList('2m,5m,11m,24m,53m'),
    WEBHOOK_MAX_ATTEMPTS: integer(5, 1, 50),
    WEBHOOK_TIMEOUT: duration('10s'),
    ALLOW_PRIVATE_CALLBACK_URLS: flag(false),
    SETTLEMENT_MAX_ATTEMPTS: integer(5, 1, 50),
    SETTLEMENT_RETRY_SCHEDULE: durationList('30s,1m,2m,5m'),
    SETTLEMENT_POLL_INTERVAL: duration('5s'),
    SETTLEMENT_REFUND_WATCH: duration('24h'),
    CONFIRMATION_WINDOW: duration('30m'),
    CONFIRMATION_POLL_INTERVAL: duration('2s'),
    RECONCILIATION_INTERVAL: duration('1h'),
    RECONCILIATION_LOOKBACK: duration('48h'),
    RECONCILIATION_GRACE: duration('5m'),
    RECONCILIATION_PAGE_SIZE: integer(500, 1, 1000),
    RECONCILIATION_STUCK_SETTLEMENT: duration('2h'),
    RECONCILIATION_MAX_LOOKUPS: integer(1000, 0, 1_000_000),
    RECONCILIATION_PROVIDER_ATTEMPTS: integer(6, 1, 50),
    RECONCILIATION_TENANT_RUNS_PER_HOUR: integer(6, 1, 1000),
    RECONCILIATION_MAX_WINDOW: duration('31d'),
    SWEEP_INTERVAL: duration('1m'),
    SWEEP_GRACE: duration('10s'),
    SANDBOX_PORT: integer(4010, 0, 65535),
    SANDBOX_WEBHOOK_URL: url('http://127.0.0.1:3000/webhooks/provider'),
    SANDBOX_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
    SANDBOX_LATENCY: duration('0ms'),
    SANDBOX_REFUND_DELAY: duration('5s'),
    SANDBOX_PROCESSING_TIME: duration('30s'),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV !== 'production') return;
    if (config.DATA_ENCRYPTION_KEY.equals(Buffer.from(DEV_ENCRYPTION_KEY, 'base64'))) {
      ctx.addIssue({ code: 'custom', path: ['DATA_ENCRYPTION_KEY'], message: 'must be set in production (the default key is public)' });
    }
    if (config.PROVIDER_WEBHOOKS_SIGNING_SECRET === 'sk_sandbox_provider_local_dev') {
      ctx.addIssue({ code: 'custom', path: ['PROVIDER_WEBHOOKS_SIGNING_SECRET'], message: 'must be set in production' });
    }
  });

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
