// `npm start`: provisions everything on a fresh clone and runs the sandbox provider, the API and the
// worker in the foreground. Ctrl-C (or SIGTERM) stops every process this script started.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareCode } from './lib/build.mjs';
import { dataDir } from './lib/paths.mjs';
import { runCli, startService, stopAll } from './lib/services.mjs';
import { makeLogger, waitFor, waitForPort } from './lib/util.mjs';
import { ensurePostgres } from './infra/postgres.mjs';
import { ensureTemporalServer } from './infra/temporal.mjs';

const log = makeLogger('start');
const children = [];
let temporal;
let stopping = false;

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  await stopAll(children);
  await temporal?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

async function httpOk(url, headers = {}) {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** The demo tenant is made once; its key is kept in .data so every later `npm start` can print it again. */
async function demoTenant(env, apiUrl) {
  const file = join(dataDir(), 'demo-tenant.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    if (await httpOk(`${apiUrl}/v1/me`, { 'X-API-Key': saved.apiKey })) return saved;
  }
  const tenant = JSON.parse(await runCli(['tenant:create', '--name', 'Demo Tenant', '--json'], { env }));
  const email = `demo+${tenant.tenantId.slice(0, 8)}@example.com`;
  const password = randomBytes(12).toString('base64url');
  // On stdin: the CLI refuses a password in its arguments (visible in ps).
  await runCli(['user:create', '--tenant', tenant.tenantId, '--email', email, '--json'], { env, input: password });
  const saved = { ...tenant, email, password };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}

const processes = (count) => `${count} process${count === '1' ? '' : 'es'}`;

async function main() {
  await prepareCode({ log });
  const postgres = await ensurePostgres({ log: makeLogger('postgres') });
  temporal = await ensureTemporalServer({ log: makeLogger('temporal') });
  const port = process.env.PORT || '3000';
  const sandboxPort = process.env.SANDBOX_PORT || '4010';
  // Variables given to `npm start` win; these are only the local defaults. The API and the worker each
  // run as many processes as the machine has cores, up to 4 (they share the cores with Postgres and Temporal).
  const cores = Math.min(availableParallelism(), 4);
  const env = {
    // The sandbox provider, the example secrets and loopback callbacks: a development machine.
    NODE_ENV: 'development',
    ALLOW_DEVELOPMENT_SETTINGS: 'true',
    API_PROCESSES: String(cores),
    WORKER_PROCESSES: String(Math.max(1, Math.floor(cores / 2))),
    ALLOW_PRIVATE_CALLBACK_URLS: 'true',
    PROVIDER_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    IDENTITY_VERIFICATION_URL: `http://127.0.0.1:${sandboxPort}/identity/nin`,
    SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/provider`,
    ...process.env,
    DATABASE_URL: postgres.url,
    TEMPORAL_ADDRESS: temporal.address,
    ...(temporal.uiUrl ? { TEMPORAL_UI_URL: temporal.uiUrl } : {}),
    PORT: port,
    SANDBOX_PORT: sandboxPort,
  };
  log(`migrate: ${(await runCli(['db:migrate'], { env })).trim()}`);
  await runCli(['temporal:setup'], { env });

  const logDir = join(dataDir(), 'logs');
  for (const name of ['sandbox', 'api', 'worker']) {
    const child = startService(name, { env, logDir });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      log(`${name} exited (${signal ?? code}); see ${join(logDir, `${name}.log`)}`);
      void shutdown(1);
    });
    children.push(child);
  }
  const apiUrl = `http://localhost:${port}`;
  await waitFor(() => httpOk(`${apiUrl}/healthz`), { timeoutMs: 60_000, what: 'the API' });
  await waitForPort(Number(sandboxPort), '127.0.0.1', { timeoutMs: 30_000 });
  const demo = await demoTenant(env, apiUrl);

  process.stdout.write(`
  NUBAN ledger is running.

    API              ${apiUrl}          (OpenAPI: ${apiUrl}/openapi.json; ${processes(env.API_PROCESSES)})
    Dashboard        ${apiUrl}/dashboard
    Metrics          http://localhost:${env.METRICS_PORT ?? 9464}/metrics (worker: ${env.WORKER_METRICS_PORT ?? 9465} and up, ${processes(env.WORKER_PROCESSES)})
    Temporal UI      ${temporal.uiUrl ?? '(external Temporal: see your cluster UI)'}
    Sandbox provider http://localhost:${sandboxPort}
    Logs             ${logDir}

    Demo tenant      ${demo.tenantId}
    Demo API key     ${demo.apiKey}
    Dashboard login  ${demo.email} / ${demo.password}

  Try it:
    curl -s ${apiUrl}/v1/me -H 'X-API-Key: ${demo.apiKey}'

  Ctrl-C stops everything this command started.
`);
}

main().catch(async (error) => {
  log(error.stack ?? String(error));
  await shutdown(1);
});
