// `npm test`: checks import boundaries and formatting (lint), provisions what the tests need, then runs every
// layer (unit, workflows, integration, sdk, e2e, browser, resilience, contract) in three lanes side by side (LANES).
// Each lane of a run starts its own in-memory Temporal dev server on a free port (never npm start's on 7233, even
// when one answers there or TEMPORAL_ADDRESS is set) and uses its own database, so a running `npm start` is untouched.
//   npm test                      every layer
//   npm test -- unit integration  some layers
//   npm test -- lint              only the checks of sources (also `npm run lint`): nothing is provisioned
//   npm test -- --grep settle     mocha's grep, across the chosen layers
//   npm test -- record-histories  on demand only: re-record the histories the replay test replays
//   npm test -- --serial          the layers one after another in one lane (a machine busy with other work)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureDependencies, prepareCode } from './lib/build.mjs';
import { splitByTime } from './lib/lane-split.mjs';
import { lint } from './lib/lint.mjs';
import { repoRoot } from './lib/paths.mjs';
import { runCli } from './lib/services.mjs';
import { makeLogger } from './lib/util.mjs';
import { ensureChromium } from './infra/chromium.mjs';
import { ensurePostgres, ensureSecondPostgres } from './infra/postgres.mjs';
import { startIsolatedTemporal } from './infra/temporal.mjs';
import { ensureSchemathesis } from './infra/schemathesis.mjs';
import { ensureTestServerExecutable } from './infra/test-server.mjs';

const LAYERS = ['lint', 'unit', 'workflows', 'integration', 'sdk', 'e2e', 'browser', 'resilience', 'contract'];
/**
 * The test layers in lanes that run side by side, each lane's layers one after another. Most of a layer's time is
 * waiting (timers, polls, a provider's delays), not CPU, so three lanes on two cores finish in about the time of the
 * longest (a trial of four, with other work on the machine, slowed every lane more than it saved). Each lane has a
 * database and a Temporal server of its own, so no test sees another lane's rows or workflows. Integration (over 20
 * minutes) runs as three parts, one per lane, its files spread by their times so that each lane with its other
 * layers takes about as long (scripts/lib/lane-split.mjs).
 */
const LANES = [
  [{ layer: 'integration', part: 1, of: 3 }, 'sdk', 'browser'],
  [{ layer: 'integration', part: 2, of: 3 }, 'e2e', 'contract'],
  ['unit', 'workflows', 'record-histories', 'resilience', { layer: 'integration', part: 3, of: 3 }],
];
/** Run only when named: each maps to its directory under dist/test. */
const ON_DEMAND = { 'record-histories': 'replay' };
const TIMEOUTS = {
  unit: 10_000,
  workflows: 60_000,
  integration: 60_000,
  sdk: 60_000,
  e2e: 180_000,
  browser: 180_000,
  resilience: 40 * 60_000,
  contract: 900_000,
  'record-histories': 300_000,
};
const log = makeLogger('test');

function parseArgs(argv) {
  const layers = argv.filter((arg) => LAYERS.includes(arg) || Object.hasOwn(ON_DEMAND, arg));
  const grepAt = argv.indexOf('--grep');
  return {
    layers: layers.length ? layers : LAYERS,
    grep: grepAt >= 0 ? argv[grepAt + 1] : undefined,
    serial: argv.includes('--serial'),
  };
}

function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Test databases (here and on the second server) are named with their creation time: ones left by killed runs are dropped after this long. */
const STALE_TEST_DATABASE_MS = 6 * 3_600_000;

async function dropStaleTestDatabases(client) {
  const stale = await client.query(
    "SELECT datname FROM pg_database WHERE datname ~ '^ledger_test_[0-9]+_' AND split_part(datname, '_', 3)::bigint < $1",
    [Date.now() - STALE_TEST_DATABASE_MS],
  );
  for (const { datname } of stale.rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
}

async function pgClient(adminUrl) {
  const { default: pg } = await import(join(repoRoot(), 'node_modules', 'pg', 'lib', 'index.js'));
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  return { client, pg };
}

/**
 * The second local server (port 5433) the clusters test puts its second cluster's databases on, started (and made,
 * once) here, its stale test databases dropped. Without Debian's tools and root, and no SECOND_DATABASE_URL, the run
 * goes on with both clusters' databases on the first server, and says so.
 */
async function provisionSecondPostgres() {
  const secondLog = makeLogger('postgres-2');
  let second;
  try {
    second = await ensureSecondPostgres({ log: secondLog });
  } catch (error) {
    secondLog(`no second server (${error.message}): the clusters test puts both clusters on the first server`);
    return null;
  }
  const { client } = await pgClient(second.url);
  try {
    await dropStaleTestDatabases(client);
  } finally {
    await client.end();
  }
  return second;
}

/** Test databases are named with their creation time, so ones left by killed runs can be dropped later. */
async function createTestDatabase(adminUrl) {
  const { client, pg } = await pgClient(adminUrl);
  try {
    await dropStaleTestDatabases(client);
    const name = `ledger_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
    await client.query(`CREATE DATABASE "${name}"`);
    return {
      url: withDatabase(adminUrl, name),
      async drop() {
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
      },
    };
  } finally {
    await client.end();
  }
}

/** Mocha's list of failures starts with this line (the spec reporter's epilogue). */
const FAILURES_START = /^\s*\d+ failing\b/;

/**
 * Runs mocha, its output prefixed with `prefix` on every line when given (lanes running side by side), else as it is.
 * Resolves to whether it passed and the lines of its failure list, which the run prints again at its end: a long
 * run's log is often read from its tail.
 */
function runMocha(args, { env, prefix }) {
  return new Promise((resolve) => {
    const failures = [];
    const child = spawn(process.execPath, [...args, ...(process.stdout.isTTY ? ['--color'] : [])], {
      cwd: repoRoot(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (stream === child.stdout && (failures.length || FAILURES_START.test(line))) failures.push(line);
        out.write(`${prefix}${line}\n`);
      });
    }
    child.on('error', (error) => {
      log(`${prefix}could not start mocha: ${error.message}`);
      resolve({ ok: false, failures });
    });
    child.on('close', (code) => resolve({ ok: code === 0, failures }));
  });
}

/**
 * Gives each part of the integration layer among `lanes` its test files (under `directory`), spread by time over the
 * parts' lanes, each lane counting the other layers it runs.
 */
function assignParts(lanes, directory) {
  const parts = lanes.flat().filter((entry) => entry.part);
  if (!parts.length || !existsSync(join(repoRoot(), directory))) return;
  const files = readdirSync(join(repoRoot(), directory), { recursive: true }).filter((file) => file.endsWith('.test.js'));
  const laneOf = (part) => lanes.find((lane) => lane.includes(part));
  const split = splitByTime(
    files,
    parts.map((part) =>
      laneOf(part)
        .filter((entry) => entry !== part)
        .map((entry) => entry.layer),
    ),
  );
  parts.forEach((part, index) => {
    part.files = split[index].map((file) => join(directory, file));
  });
}

/** Runs one lane's layers in order against a database and a Temporal server of the lane's own, adding each outcome to `results`. */
async function runLane(layers, { grep, postgres, shared, prefix, results }) {
  const temporal = await startIsolatedTemporal({ log: makeLogger(prefix ? `temporal ${prefix.trim()}` : 'temporal') });
  const database = await createTestDatabase(postgres.url).catch(async (error) => {
    await temporal.stop();
    throw error;
  });
  log(`${prefix}database ${new URL(database.url).pathname.slice(1)}, temporal ${temporal.address}`);
  const env = {
    ...shared,
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
  };
  try {
    await runCli(['db:migrate'], { env });
    for (const { layer, part, of, files } of layers) {
      const name = part ? `${layer} (part ${part} of ${of})` : layer;
      const directory = join('dist', 'test', Object.hasOwn(ON_DEMAND, layer) ? ON_DEMAND[layer] : layer);
      if (!existsSync(join(repoRoot(), directory)) || files?.length === 0) {
        log(`${prefix}layer: ${name} has no tests yet; skipped`);
        continue;
      }
      log(`${prefix}layer: ${name}`);
      const started = Date.now();
      const args = [
        join(repoRoot(), 'node_modules', 'mocha', 'bin', 'mocha.js'),
        '--enable-source-maps',
        '--recursive',
        '--exit',
        // The spec reporter, which also tells the tests' waits when mocha will time out what is running.
        '--reporter',
        join('dist', 'test', 'helpers', 'reporter.js'),
        '--timeout',
        String(TIMEOUTS[layer]),
        ...(grep ? ['--grep', grep] : []),
        ...(files ?? [directory]),
      ];
      const { ok, failures } = await runMocha(args, { env, prefix });
      results.push({ layer: name, order: LAYERS.indexOf(layer), ok, failures, took: (Date.now() - started) / 1000 });
    }
  } finally {
    await database.drop().catch((error) => log(`could not drop the test database: ${error.message}`));
    await temporal.stop();
  }
}

/** Provisions what the chosen layers need, then runs their lanes side by side, adding each layer's outcome to `results`. */
async function runTestLayers(layers, { grep, serial }, results) {
  const started = Date.now();
  await prepareCode({ log });
  const postgres = await ensurePostgres({ log: makeLogger('postgres') });
  const testServer =
    layers.includes('workflows') || layers.includes('record-histories')
      ? await ensureTestServerExecutable({ log: makeLogger('test-server') })
      : null;
  const schemathesis = layers.includes('contract') ? await ensureSchemathesis({ log: makeLogger('schemathesis') }) : null;
  const chromium = layers.includes('browser') ? await ensureChromium({ log: makeLogger('chromium') }) : null;
  // The clusters test puts its second cluster's databases on a second local server, so it spans two servers.
  const secondPostgres = layers.includes('e2e') ? await provisionSecondPostgres() : null;
  log(`provisioned in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const shared = {
    ...process.env,
    NODE_ENV: 'test',
    // The sandbox provider and the example secrets; the tests of the production checks unset it.
    ALLOW_DEVELOPMENT_SETTINGS: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    TEST_ADMIN_DATABASE_URL: postgres.url,
    TEST_SECOND_CLUSTER_ADMIN_URL: secondPostgres?.url ?? '',
    TEMPORAL_TEST_SERVER: testServer?.path ?? '',
    SCHEMATHESIS_BIN: schemathesis?.bin ?? '',
    CHROMIUM_PATH: chromium?.path ?? '',
    // Screenshots of every dashboard page, kept after the run (git-ignored).
    BROWSER_ARTIFACTS_DIR: join(repoRoot(), '.artifacts', 'browser'),
    ALLOW_PRIVATE_CALLBACK_URLS: 'true',
    // Sign-ins at the production cost (2^17) take seconds each on this loaded machine; the tests that
    // are about the cost set it back to the default themselves.
    PASSWORD_SCRYPT_LOG_N: process.env.PASSWORD_SCRYPT_LOG_N ?? '14',
    // Every test signs in from 127.0.0.1 against one database; the rate-limit tests set their own limits.
    RATE_LIMIT_SIGNIN_ADDRESS: process.env.RATE_LIMIT_SIGNIN_ADDRESS ?? 'off',
    RATE_LIMIT_UNSIGNED_WEBHOOKS: process.env.RATE_LIMIT_UNSIGNED_WEBHOOKS ?? 'off',
    // Processes the tests start serve /metrics on any free port, never on the fixed defaults a running `npm start` holds.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
  };
  const lanes = (serial ? [[...LAYERS, ...Object.keys(ON_DEMAND)]] : LANES)
    .map((lane) =>
      lane.map((entry) => (typeof entry === 'string' ? { layer: entry } : { ...entry })).filter(({ layer }) => layers.includes(layer)),
    )
    .filter((lane) => lane.length);
  assignParts(lanes, join('dist', 'test', 'integration'));
  const outcomes = await Promise.allSettled(
    lanes.map((lane) =>
      runLane(lane, {
        grep,
        postgres,
        shared,
        prefix: lanes.length > 1 ? `[${lane.map(({ layer, part }) => (part ? `${layer} ${part}` : layer)).join(' ')}] ` : '',
        results,
      }),
    ),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

async function runLint(results) {
  log('layer: lint');
  const started = Date.now();
  results.push({ layer: 'lint', order: 0, ok: await lint({ log: makeLogger('lint') }), took: (Date.now() - started) / 1000 });
}

async function main() {
  const { layers, grep, serial } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const results = [];
  await ensureDependencies({ log });
  const testLayers = layers.filter((layer) => layer !== 'lint');
  // Lint reads sources only, so it runs beside the build and the lanes rather than before them.
  await Promise.all([
    layers.includes('lint') ? runLint(results) : null,
    testLayers.length ? runTestLayers(testLayers, { grep, serial }, results) : null,
  ]);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  results.sort((a, b) => a.order - b.order || a.layer.localeCompare(b.layer));
  for (const { layer, failures } of results.filter(({ ok, failures }) => !ok && failures?.length)) {
    log(`${layer} failed; its failures again:\n${failures.map((line) => `  ${line}`).join('\n')}`);
  }
  log(`${results.map(({ layer, ok, took }) => `${layer}: ${ok ? 'passed' : 'FAILED'} (${took.toFixed(0)} s)`).join(', ')} (${seconds} s)`);
  process.exit(results.every(({ ok }) => ok) ? 0 : 1);
}

main().catch((error) => {
  log(error.stack ?? String(error));
  process.exit(1);
});
