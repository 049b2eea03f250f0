// `npm run soak -- --minutes N --seed S [--until OP] [--settle-minutes M]`: the seeded chaos soak
// (docs/soak.md). It starts its own Postgres and Temporal dev server, so nothing else is touched.
// Exit code: 0 clean, 1 on any invariant violation, 2 when the soak itself could not run.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { prepareCode } from './lib/build.mjs';
import { repoRoot } from './lib/paths.mjs';
import { makeLogger, run } from './lib/util.mjs';
import { ensurePostgres } from './infra/postgres.mjs';

const log = makeLogger('soak');
await prepareCode({ log });
// Only for the server binaries: the soak runs a throwaway server of its own.
await ensurePostgres({ log: makeLogger('postgres') });
const env = {
  ...process.env,
  NODE_ENV: 'test',
  ALLOW_DEVELOPMENT_SETTINGS: 'true',
  TEMPORAL_TASK_QUEUE: `soak-${randomBytes(4).toString('hex')}`,
  ALLOW_PRIVATE_CALLBACK_URLS: 'true',
  PASSWORD_SCRYPT_LOG_N: process.env.PASSWORD_SCRYPT_LOG_N ?? '14',
  RATE_LIMIT_SIGNIN_ADDRESS: 'off',
  RATE_LIMIT_UNSIGNED_WEBHOOKS: 'off',
  METRICS_PORT: '0',
  WORKER_METRICS_PORT: '0',
};
const result = await run(
  process.execPath,
  ['--enable-source-maps', join(repoRoot(), 'dist', 'test', 'resilience', 'soak', 'main.js'), ...process.argv.slice(2)],
  {
    cwd: repoRoot(),
    env,
    stdio: 'inherit',
  },
);
process.exit(result.code ?? 2);
