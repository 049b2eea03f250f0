import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { getPriority } from 'node:os';
import { eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { scrape, total } from '../helpers/prometheus';
import { scratchDatabase } from '../helpers/scratch-database';
import { E2E_TIMINGS } from './system';
import { cliTenant, provision } from './tenant';

/**
 * A forged provider webhook on a connection of its own, so the group's primary hands each to the next copy.
 * `dropAfterMs` is for while a copy is being killed: a connection the primary handed to a copy at that
 * moment is never answered, so the request is dropped after that long and the caller sends another.
 */
function forgedWebhook(apiUrl: string, { dropAfterMs }: { dropAfterMs?: number } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${apiUrl}/webhooks/provider`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'provider-signature': 'forged', 'provider-timestamp': new Date().toISOString() },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    if (dropAfterMs !== undefined) request.setTimeout(dropAfterMs, () => request.destroy(new Error(`no answer within ${dropAfterMs} ms`)));
    request.end(JSON.stringify({ event_type: 'payment_success', requestId: 'forged' }));
  });
}

const copiesOf = (pid: number): number[] =>
  execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);

/** The nice value of every thread of a process (Linux: field 19 of each /proc/<pid>/task/<tid>/stat). */
const threadNiceValues = (pid: number): number[] =>
  readdirSync(`/proc/${pid}/task`).map((thread) => {
    const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });

describe('e2e: API and worker as process groups (two processes each)', () => {
  let sys: RunningSystem;
  let database: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  before(async () => {
    database = await scratchDatabase('groups');
    sys = await startSystem({ ...E2E_TIMINGS, API_PROCESSES: '2', WORKER_PROCESSES: '2', DATABASE_URL: database.url });
  });
  after(async () => {
    await sys?.stop();
    await database?.drop();
  });

  it('serves the API from every copy and sums their metrics into one scrape', async () => {
    const apiPid = sys.pid('api')!;
    assert.equal(copiesOf(apiPid).length, 2);
    const before = await scrape(sys.metricsUrl);
    const sent = 24;
    const statuses = await Promise.all(Array.from({ length: sent }, () => forgedWebhook(sys.apiUrl)));
    assert.ok(statuses.every((status) => status === 200));
    const after = await scrape(sys.metricsUrl);
    // Round robin gives each copy about half: only the sum over both copies is exact.
    assert.equal(
      total(after, 'nuban_provider_webhooks_total', { category: 'sig_invalid' }) -
        total(before, 'nuban_provider_webhooks_total', { category: 'sig_invalid' }),
      sent,
    );
    // The pipeline gauges are the primary's, once (not once per copy).
    assert.equal(after.filter((sample) => sample.name === 'nuban_confirmations_pending').length, 1);
  });

  it('confirms payments with two worker processes on the task queue, each with its own metrics and the SDK metrics', async () => {
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    const before = await scrape(sys.metricsUrl);
    for (let i = 0; i < 4; i += 1) {
      const sent = await fetch(`${sys.sandboxUrl}/sandbox/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accountRef: account.AccountRef, amount: 5025 }),
      });
      assert.equal(sent.status, 200);
    }
    await eventually(
      async () =>
        total(await scrape(sys.metricsUrl), 'nuban_confirmation_lag_seconds_count') -
          total(before, 'nuban_confirmation_lag_seconds_count') >=
        4,
      {
        intervalMs: 1_000,
        what: 'four confirmations in the lag histogram',
      },
    );
    // Each copy logs its metrics port once it runs (the system counts as ready when the first one polls).
    const workerUrls = await eventually(async () => (sys.workerMetricsUrls().length === 2 ? sys.workerMetricsUrls() : null), {
      what: 'both worker processes running',
    });
    const workers = await Promise.all(workerUrls.map((url) => scrape(url)));
    const lookups = workers.reduce(
      (sum, samples) => sum + total(samples, 'nuban_provider_request_seconds_count', { endpoint: 'getTransaction' }),
      0,
    );
    assert.ok(lookups >= 4, `the workers looked the payments up at the provider (${lookups} lookups)`);
    for (const samples of workers)
      assert.ok(
        samples.some((sample) => sample.name.startsWith('temporal_')),
        'the Temporal SDK metrics are in the same scrape',
      );
    assert.ok(
      sys.logs.worker.some((line) => line.includes('workflow bundle: prebuilt')),
      'the workers loaded the prebuilt workflow bundle',
    );
    assert.deepEqual(
      sys.logs.worker.filter((line) => line.includes('restarting it')),
      [],
      'no worker copy died',
    );
  });

  it('runs every thread of each worker copy at the lower CPU priority (WORKER_NICE, 10), the API at the normal one', () => {
    const workerThreads = copiesOf(sys.pid('worker')!).flatMap(threadNiceValues);
    // The Temporal runtime's threads and the workflow threads are made after the lowering, and inherit it.
    assert.ok(workerThreads.length > 10, `${workerThreads.length} worker threads`);
    // Relative to this process's own priority (a runner may start everything niced already; a process can only lower its own).
    const started = getPriority();
    assert.deepEqual([...new Set(workerThreads)], [Math.max(10, started)]);
    assert.deepEqual([...new Set(copiesOf(sys.pid('api')!).flatMap(threadNiceValues))], [started]);
  });

  it('starts a copy again when it dies, and keeps answering meanwhile', async () => {
    const apiPid = sys.pid('api')!;
    const [victim] = copiesOf(apiPid);
    process.kill(victim!, 'SIGKILL');
    // The other copy answers while the primary starts a new one. Each request dropped unanswered is
    // followed by one given twice as long, so only the test's own timeout bounds how slow an answer may be.
    let patienceMs = 2_500;
    await eventually(async () => (await forgedWebhook(sys.apiUrl, { dropAfterMs: (patienceMs *= 2) }).catch(() => 0)) === 200, {
      what: 'an answer from the surviving copy',
    });
    await eventually(async () => copiesOf(apiPid).length === 2 && !copiesOf(apiPid).includes(victim!), { what: 'the copy restarted' });
    await eventually(
      async () =>
        await scrape(sys.metricsUrl).then(
          () => true,
          () => false,
        ),
      { what: 'the group scrape after the restart' },
    );
  });
});
