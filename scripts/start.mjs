// `npm start`: provisions everything on a fresh clone and runs the sandbox provider, the API and the
// worker in the foreground. Ctrl-C (or SIGTERM) stops every process this script started.
// START_HOSTS=2 runs a second API and worker beside them, as a second host would (docs/scaling.md#many-hosts).
// START_CLUSTERS=2 puts tenants on two local Postgres clusters (5432 and 5433), a cell each (docs/scaling.md#clusters).
// START_REPLICA=1 makes and starts a streaming replica of the local Postgres for reads (docs/scaling.md#read-replicas).
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareCode } from './lib/build.mjs';
import { dataDir } from './lib/paths.mjs';
import { runCli, startService, stopAll } from './lib/services.mjs';
import { makeLogger, waitFor, waitForPort } from './lib/util.mjs';
import { CLUSTER_NAMES, ensurePostgres, ensureReplica, ensureSecondPostgres, twoClustersSetting } from './infra/postgres.mjs';
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

/**
 * The demo tenant is made once; its key is kept in .data so every later `npm start` can print it again. With
 * `cluster`, on that cluster (START_CLUSTERS=2 makes one on each), in a file of its own.
 */
async function demoTenant(env, apiUrl, { cluster, name = 'Demo Tenant', fileName = 'demo-tenant.json' } = {}) {
  const file = join(dataDir(), fileName);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    if (await httpOk(`${apiUrl}/v1/me`, { 'X-API-Key': saved.apiKey })) return saved;
  }
  const placement = cluster ? ['--cluster', cluster] : [];
  const tenant = JSON.parse(await runCli(['tenant:create', '--name', name, ...placement, '--json'], { env }));
  const email = `demo+${tenant.tenantId.slice(0, 8)}@example.com`;
  const password = randomBytes(12).toString('base64url');
  // On stdin: the CLI refuses a password in its arguments (visible in ps).
  await runCli(['user:create', '--tenant', tenant.tenantId, '--email', email, '--json'], { env, input: password });
  const saved = { ...tenant, email, password };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}

const processes = (count) => `${count} process${count === '1' ? '' : 'es'}`;

/** How far each further host's metrics ports are from the first host's (its API port is only one further). */
const HOST_METRICS_PORT_STEP = 10;

/** START_CLUSTERS: how many local Postgres clusters hold the tenants (1 unless set). */
function clusterCount() {
  const value = process.env.START_CLUSTERS || '1';
  if (!/^[12]$/.test(value)) throw new Error(`START_CLUSTERS must be 1 or 2 (it is "${value}")`);
  return Number(value);
}

/** START_HOSTS: how many API and worker groups to run (1 unless set), each as one host of a deployment would. */
function hostCount() {
  const value = process.env.START_HOSTS || '1';
  if (!/^[1-4]$/.test(value)) throw new Error(`START_HOSTS must be a whole number from 1 to 4 (it is "${value}")`);
  return Number(value);
}

/**
 * The environment of host `index` (from 0): the first host's ports, then for each further host the API port
 * one higher and the metrics ports HOST_METRICS_PORT_STEP higher ("any free port", 0, stays so). Everything
 * else is shared: the database, Temporal and its task queue, the sandbox, the secrets.
 */
function hostEnv(env, index) {
  if (index === 0) return env;
  const shifted = (port, step) => (Number(port) === 0 ? '0' : String(Number(port) + step * index));
  return {
    ...env,
    PORT: shifted(env.PORT, 1),
    METRICS_PORT: shifted(env.METRICS_PORT ?? 9464, HOST_METRICS_PORT_STEP),
    WORKER_METRICS_PORT: shifted(env.WORKER_METRICS_PORT ?? 9465, HOST_METRICS_PORT_STEP),
  };
}

function hostBanner(env, index, hosts) {
  const apiUrl = `http://localhost:${env.PORT}`;
  const heading = hosts === 1 ? '' : `  Host ${index + 1}${index === 0 ? '' : ' (the same database, Temporal and sandbox)'}\n`;
  return `${heading}    API              ${apiUrl}          (OpenAPI: ${apiUrl}/openapi.json; ${processes(env.API_PROCESSES)})
    Dashboard        ${apiUrl}/dashboard
    Metrics          http://localhost:${env.METRICS_PORT ?? 9464}/metrics (worker: ${env.WORKER_METRICS_PORT ?? 9465} and up, ${processes(env.WORKER_PROCESSES)})`;
}

/** START_REPLICA: whether to run a read replica of the local Postgres beside it (off unless set). */
function replicaWanted() {
  const value = process.env.START_REPLICA || '0';
  if (!/^[01]$/.test(value)) throw new Error(`START_REPLICA must be 0 or 1 (it is "${value}")`);
  return value === '1';
}

async function main() {
  const hosts = hostCount();
  const clusters = clusterCount();
  const withReplica = replicaWanted();
  await prepareCode({ log });
  const postgres = await ensurePostgres({ log: makeLogger('postgres') });
  const second = clusters === 2 ? await ensureSecondPostgres({ log: makeLogger('postgres-2') }) : null;
  const replica = withReplica ? await ensureReplica({ log: makeLogger('replica') }) : null;
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
    // The provider's webhooks go to the first host, as a real provider's go to one URL in front of them all.
    SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/provider`,
    ...process.env,
    DATABASE_URL: postgres.url,
    // Two clusters: the first's database is also the control database (the directory of placements).
    ...(second ? { DATABASE_CLUSTERS: twoClustersSetting(postgres.url, second.url) } : {}),
    ...(replica ? { DATABASE_REPLICA_URL: replica.url } : {}),
    TEMPORAL_ADDRESS: temporal.address,
    ...(temporal.uiUrl ? { TEMPORAL_UI_URL: temporal.uiUrl } : {}),
    PORT: port,
    SANDBOX_PORT: sandboxPort,
  };
  log(`migrate: ${(await runCli(['db:migrate'], { env })).trim()}`);
  await runCli(['temporal:setup'], { env });

  const logDir = join(dataDir(), 'logs');
  const start = (name, { label, env: serviceEnv }) => {
    const child = startService(name, { env: serviceEnv, logDir, label });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      log(`${label} exited (${signal ?? code}); see ${join(logDir, `${label}.log`)}`);
      void shutdown(1);
    });
    children.push(child);
  };
  start('sandbox', { label: 'sandbox', env });
  const hostEnvs = Array.from({ length: hosts }, (_, index) => hostEnv(env, index));
  hostEnvs.forEach((serviceEnv, index) => {
    const suffix = index === 0 ? '' : `-${index + 1}`;
    for (const name of ['api', 'worker']) start(name, { label: `${name}${suffix}`, env: serviceEnv });
  });
  for (const serviceEnv of hostEnvs)
    await waitFor(() => httpOk(`http://localhost:${serviceEnv.PORT}/healthz`), {
      timeoutMs: 60_000,
      what: `the API on port ${serviceEnv.PORT}`,
    });
  const apiUrl = `http://localhost:${port}`;
  await waitForPort(Number(sandboxPort), '127.0.0.1', { timeoutMs: 30_000 });
  const demo = await demoTenant(env, apiUrl, second ? { cluster: CLUSTER_NAMES[0] } : {});
  const secondDemo = second
    ? await demoTenant(env, apiUrl, { cluster: CLUSTER_NAMES[1], name: 'Demo Tenant 2', fileName: 'demo-tenant-2.json' })
    : null;
  const redact = (url) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  const clusterLines = second
    ? `
    Clusters         ${CLUSTER_NAMES[0]} ${redact(postgres.url)} (task queue ${env.TEMPORAL_TASK_QUEUE ?? 'ledger'})
                     ${CLUSTER_NAMES[1]} ${redact(second.url)} (task queue ${env.TEMPORAL_TASK_QUEUE ?? 'ledger'}.${CLUSTER_NAMES[1]})
    Demo tenant 2    ${secondDemo.tenantId} on ${CLUSTER_NAMES[1]}
    Demo API key 2   ${secondDemo.apiKey}
    Dashboard login  ${secondDemo.email} / ${secondDemo.password}
`
    : '';

  const replicaLine = replica
    ? `    Read replica     ${replica.url.replace(/:[^:@/]*@/, ':***@')} (statements, books and lists; X-Read-From says which served)\n`
    : '';
  process.stdout.write(`
  NUBAN ledger is running${hosts === 1 ? '' : ` as ${hosts} hosts`}${second ? ' on two Postgres clusters' : ''}.

${hostEnvs.map((serviceEnv, index) => hostBanner(serviceEnv, index, hosts)).join('\n\n')}${hosts === 1 ? '' : '\n'}
${replicaLine}    Temporal UI      ${temporal.uiUrl ?? '(external Temporal: see your cluster UI)'}
    Sandbox provider http://localhost:${sandboxPort}
    Logs             ${logDir}

    Demo tenant      ${demo.tenantId}${second ? ` on ${CLUSTER_NAMES[0]}` : ''}
    Demo API key     ${demo.apiKey}
    Dashboard login  ${demo.email} / ${demo.password}
${clusterLines}
  Try it:
    curl -s ${apiUrl}/v1/me -H 'X-API-Key: ${demo.apiKey}'

  Ctrl-C stops everything this command started.
`);
}

main().catch(async (error) => {
  log(error.stack ?? String(error));
  await shutdown(1);
});
