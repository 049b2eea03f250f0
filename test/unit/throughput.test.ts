import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { ConfigError, loadConfig } from '../../src/config';
import { DEVELOPMENT_SETTINGS } from '../helpers/config';
import { createProviderMetrics } from '../../src/metrics/provider.metrics';
import { workerTuning } from '../../src/temporal/worker-tuning';
import { buckets, parsePrometheusText, quantileBetween, total } from '../helpers/prometheus';

describe('throughput settings and measures', () => {
  it('reads process counts, metrics and worker tuning from config, with defaults', () => {
    const defaults = loadConfig(DEVELOPMENT_SETTINGS);
    assert.deepEqual(
      [
        defaults.API_PROCESSES,
        defaults.WORKER_PROCESSES,
        defaults.METRICS_PORT,
        defaults.WORKER_METRICS_PORT,
        defaults.METRICS_TOKEN,
        defaults.METRICS_CACHE,
        defaults.PAYMENT_POSTING_GROUP_MAX,
        defaults.PAYMENT_POSTING_STATEMENTS,
        defaults.WORKER_NICE,
        defaults.CONFIRMATION_BATCHES_PER_WORKER,
      ],
      [1, 1, 9464, 9465, undefined, 5_000, 64, 1, 10, 4],
    );
    // Unset tuning keeps the SDK's own defaults; only the sticky timeout is always given.
    assert.deepEqual(workerTuning(defaults), { stickyQueueScheduleToStartTimeout: 10_000 });
    const tuned = loadConfig({
      ...DEVELOPMENT_SETTINGS,
      WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '80',
      WORKER_MAX_CACHED_WORKFLOWS: '2000',
      WORKER_WORKFLOW_TASK_POLLERS: '8',
      API_PROCESSES: '4',
    });
    assert.deepEqual(workerTuning(tuned), {
      maxConcurrentWorkflowTaskExecutions: 80,
      maxCachedWorkflows: 2000,
      maxConcurrentWorkflowTaskPolls: 8,
      stickyQueueScheduleToStartTimeout: 10_000,
    });
    assert.equal(tuned.API_PROCESSES, 4);
  });

  it("bounds the worker's heap growth at 50% over what the last full collection kept unless told otherwise (0: V8's own)", () => {
    assert.equal(loadConfig(DEVELOPMENT_SETTINGS).WORKER_HEAP_GROWING_PERCENT, 50);
    assert.equal(loadConfig({ ...DEVELOPMENT_SETTINGS, WORKER_HEAP_GROWING_PERCENT: '0' }).WORKER_HEAP_GROWING_PERCENT, 0);
    assert.throws(
      () => loadConfig({ ...DEVELOPMENT_SETTINGS, WORKER_HEAP_GROWING_PERCENT: '-5' }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.some((problem) => problem.startsWith('WORKER_HEAP_GROWING_PERCENT')),
    );
  });

  it('refuses a short metrics token, zero processes, a posting group or statement count of zero and a nice value past 19, naming each', () => {
    const names = ['METRICS_TOKEN', 'API_PROCESSES', 'PAYMENT_POSTING_GROUP_MAX', 'PAYMENT_POSTING_STATEMENTS', 'WORKER_NICE'];
    assert.throws(
      () =>
        loadConfig({
          ...DEVELOPMENT_SETTINGS,
          METRICS_TOKEN: 'short',
          API_PROCESSES: '0',
          PAYMENT_POSTING_GROUP_MAX: '0',
          PAYMENT_POSTING_STATEMENTS: '0',
          WORKER_NICE: '20',
        }),
      (error: unknown) => error instanceof ConfigError && names.every((name) => error.problems.some((problem) => problem.startsWith(name))),
    );
  });

  it('counts a provider call as failed when no answer came or the provider said "not now"', async () => {
    const registry = new Registry();
    const metrics = createProviderMetrics(registry);
    metrics.observe('getTransaction', 200, 0.02);
    metrics.observe('getTransaction', 404, 0.02);
    metrics.observe('getTransaction', 429, 0.02);
    metrics.observe('getTransaction', 503, 0.02);
    metrics.observe('submitTransfer', null, 10);
    const samples = parsePrometheusText(await registry.metrics());
    assert.equal(total(samples, 'nuban_provider_request_seconds_count', { endpoint: 'getTransaction' }), 4);
    assert.equal(total(samples, 'nuban_provider_request_seconds_count', { endpoint: 'getTransaction', outcome: '4xx' }), 2);
    assert.deepEqual(
      samples
        .filter((sample) => sample.name === 'nuban_provider_request_errors_total')
        .map((sample) => [sample.labels.endpoint, sample.labels.reason, sample.value]),
      [
        ['getTransaction', 'http_429', 1],
        ['getTransaction', 'http_503', 1],
        ['submitTransfer', 'unreachable', 1],
      ],
    );
  });

  it('reads quantiles of what a histogram observed between two scrapes, as histogram_quantile does', () => {
    const scrapeOf = (counts: number[]) =>
      parsePrometheusText(['1', '5', '10', '+Inf'].map((le, index) => `lag_seconds_bucket{le="${le}"} ${counts[index]}`).join('\n'));
    const before = buckets(scrapeOf([10, 10, 10, 10]), 'lag_seconds');
    // 100 new observations: 50 in (0, 1], 40 in (1, 5], 10 in (5, 10].
    const after = buckets(scrapeOf([60, 100, 110, 110]), 'lag_seconds');
    assert.equal(quantileBetween(before, after, 0.5), 1);
    assert.equal(quantileBetween(before, after, 0.7), 3);
    assert.equal(quantileBetween(before, after, 0.99), 9.5);
    assert.ok(Number.isNaN(quantileBetween(after, after, 0.5)));
  });
});
