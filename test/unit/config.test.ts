import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { DEVELOPMENT_SETTINGS } from '../helpers/config';

/** The signing key of the provider documentation's webhook signature example. */
const PROVIDER_DOCUMENTATION_KEY = 'HkatexKDZg7CLWy96q5sfrVHSvtoz92B';

/** A production configuration with nothing to refuse. */
const PRODUCTION = {
  NODE_ENV: 'production',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  PROVIDER_WEBHOOKS_SIGNING_SECRET: 'a-real-secret-from-the-provider',
  REQUEST_HASH_SECRET: 'a-request-hash-secret-of-our-own-0123456789',
  PROVIDER_BASE_URL: 'https://api.provider.example.com',
  IDENTITY_VERIFICATION_URL: 'https://identity.provider.example.com/nin',
  PROVIDER_CLIENT_ID: 'client-id',
  PROVIDER_CLIENT_SECRET: 'client-secret',
  PROVIDER_ACCOUNT_ID: 'account-id',
};

describe('config', () => {
  it('runs with no variables set, on local defaults', () => {
    const config = loadConfig(DEVELOPMENT_SETTINGS);
    assert.equal(config.PORT, 3000);
    assert.equal(config.TEMPORAL_NAMESPACE, 'default');
    assert.deepEqual(
      config.WEBHOOK_RETRY_SCHEDULE,
      [2, 5, 11, 24, 53].map((minutes) => minutes * 60_000),
    );
    assert.equal(config.WEBHOOK_MAX_ATTEMPTS, 5);
    assert.equal(config.SETTLEMENT_MAX_ATTEMPTS, 5);
    assert.equal(config.CONFIRMATION_WINDOW, 30 * 60_000);
    assert.equal(config.ALLOW_PRIVATE_CALLBACK_URLS, false);
    assert.ok(Object.isFrozen(config));
  });

  it('parses durations with units and lists of them', () => {
    const config = loadConfig({
      ...DEVELOPMENT_SETTINGS,
      CONFIRMATION_WINDOW: '500ms',
      SETTLEMENT_RETRY_SCHEDULE: '20s, 2m,1h',
      SWEEP_GRACE: '1.5s',
    });
    assert.equal(config.CONFIRMATION_WINDOW, 500);
    assert.deepEqual(config.SETTLEMENT_RETRY_SCHEDULE, [20_000, 120_000, 3_600_000]);
    assert.equal(config.SWEEP_GRACE, 1_500);
  });

  it('names every bad variable in one error', () => {
    const error = (() => {
      try {
        loadConfig({
          ...DEVELOPMENT_SETTINGS,
          PORT: 'eighty',
          WEBHOOK_RETRY_SCHEDULE: '2m,soon',
          LOG_LEVEL: 'loud',
          CONFIRMATION_WINDOW: '30',
        });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(error instanceof ConfigError);
    for (const name of ['PORT', 'WEBHOOK_RETRY_SCHEDULE', 'LOG_LEVEL', 'CONFIRMATION_WINDOW']) {
      assert.ok(
        error.problems.some((problem) => problem.startsWith(`${name}:`)),
        `${name} missing from ${error.message}`,
      );
    }
    assert.equal(error.problems.length, 4);
  });

  it('serves /metrics on loopback unless told otherwise; production refuses another host without a token', () => {
    assert.equal(loadConfig(DEVELOPMENT_SETTINGS).METRICS_HOST, '127.0.0.1');
    assert.throws(
      () => loadConfig({ ...PRODUCTION, METRICS_HOST: '0.0.0.0' }),
      /METRICS_HOST: is 0\.0\.0\.0, beyond loopback, without METRICS_TOKEN/,
    );
    assert.equal(
      loadConfig({ ...PRODUCTION, METRICS_HOST: '0.0.0.0', METRICS_TOKEN: 'a-metrics-token-0123456789' }).METRICS_HOST,
      '0.0.0.0',
    );
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]'])
      assert.equal(loadConfig({ ...PRODUCTION, METRICS_HOST: host }).METRICS_HOST, host);
    assert.equal(
      loadConfig({ ...DEVELOPMENT_SETTINGS, METRICS_HOST: '0.0.0.0' }).METRICS_HOST,
      '0.0.0.0',
      "outside production it is the operator's call",
    );
  });

  it('refuses a published secret as the previous webhook signing secret in production', () => {
    assert.throws(
      () => loadConfig({ ...PRODUCTION, PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET: 'sk_sandbox_provider_local_dev' }),
      /PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET: is published in this repository/,
    );
    assert.equal(
      loadConfig({ ...PRODUCTION, PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET: 'the-old-secret-of-our-own' })
        .PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET,
      'the-old-secret-of-our-own',
    );
  });

  it('treats an empty variable as unset', () => {
    assert.equal(loadConfig({ ...DEVELOPMENT_SETTINGS, PORT: '' }).PORT, 3000);
  });

  it('refuses the public development secrets in production', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        for (const name of [
          'DATA_ENCRYPTION_KEY',
          'PROVIDER_WEBHOOKS_SIGNING_SECRET',
          'REQUEST_HASH_SECRET',
          'PROVIDER_BASE_URL',
          'IDENTITY_VERIFICATION_URL',
          'PROVIDER_CLIENT_ID',
          'PROVIDER_CLIENT_SECRET',
          'PROVIDER_ACCOUNT_ID',
        ]) {
          assert.ok(
            error.problems.some((problem) => problem.startsWith(`${name}:`)),
            `${name} missing from ${error.message}`,
          );
        }
        return true;
      },
    );
    assert.equal(loadConfig(PRODUCTION).NODE_ENV, 'production');
  });

  it('applies the production checks when NODE_ENV is unset; only ALLOW_DEVELOPMENT_SETTINGS=true relaxes them, never with NODE_ENV=production', () => {
    const problems = (env: Record<string, string | undefined>): string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    for (const env of [
      {},
      { NODE_ENV: 'development' },
      { NODE_ENV: 'test' },
      { NODE_ENV: 'production', ALLOW_DEVELOPMENT_SETTINGS: 'true' },
    ]) {
      const refused = problems(env);
      assert.ok(
        refused.some((problem) => problem.startsWith('PROVIDER_WEBHOOKS_SIGNING_SECRET:')),
        `${JSON.stringify(env)}: ${refused.join('; ')}`,
      );
    }
    assert.ok(problems({}).some((problem) => problem.includes('ALLOW_DEVELOPMENT_SETTINGS=true (with NODE_ENV=development) relaxes them')));
    assert.deepEqual(problems({ NODE_ENV: 'test', ALLOW_DEVELOPMENT_SETTINGS: 'true' }), []);
    assert.equal(loadConfig({ ...PRODUCTION, NODE_ENV: undefined }).NODE_ENV, 'production', 'unset is production');
    assert.equal(loadConfig(DEVELOPMENT_SETTINGS).NODE_ENV, 'development');
  });

  it('refuses provider URLs in production that are not https or name an internal host', () => {
    for (const url of [
      'http://api.provider.example.com',
      'https://sandbox:4010',
      'https://localhost',
      'https://127.0.0.1',
      'https://[fd00::1]',
      'https://192.168.1.10/nin',
    ]) {
      for (const name of ['PROVIDER_BASE_URL', 'IDENTITY_VERIFICATION_URL']) {
        assert.throws(
          () => loadConfig({ ...PRODUCTION, [name]: url }),
          (error: unknown) => error instanceof ConfigError && error.problems.some((problem) => problem.startsWith(`${name}:`)),
          `${name}=${url}`,
        );
      }
    }
  });

  it('refuses in production every secret value published in docker-compose.yml', () => {
    const compose = readFileSync(path.resolve(__dirname, '../../../docker-compose.yml'), 'utf8');
    const published = [...compose.matchAll(/^\s+(\w*(?:KEY|SECRET)\w*):\s*"?([^"\s#]+)"?/gm)].map(
      (match) => [match[1]!, match[2]!] as const,
    );
    assert.ok(published.length >= 2, 'docker-compose.yml lists its secrets');
    for (const [name, value] of published) {
      assert.throws(
        () => loadConfig({ ...PRODUCTION, [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.problems.some((problem) => problem.startsWith(`${name}:`)),
        name,
      );
    }
  });

  it('refuses in production every signing key of the test vectors and the example key of the provider documentation', () => {
    const vectorSecrets = (value: unknown): string[] =>
      value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, inner]) => (key === 'secret' && typeof inner === 'string' ? [inner] : vectorSecrets(inner)))
        : [];
    const vectors = ['inbound-signature', 'outbound-signature'].map((name) =>
      JSON.parse(readFileSync(path.resolve(__dirname, `../../../test/vectors/${name}.json`), 'utf8')),
    );
    const published = [...new Set([...vectors.flatMap(vectorSecrets), PROVIDER_DOCUMENTATION_KEY])];
    assert.ok(published.length >= 3, published.join());
    for (const secret of published) {
      for (const name of ['PROVIDER_WEBHOOKS_SIGNING_SECRET', 'PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET']) {
        assert.throws(
          () => loadConfig({ ...PRODUCTION, [name]: secret }),
          (error: unknown) =>
            error instanceof ConfigError &&
            error.problems.some((problem) => problem.startsWith(`${name}:`) && problem.includes('published')),
          `${name}=${secret}`,
        );
      }
    }
    assert.throws(
      () => loadConfig({ ...PRODUCTION, REQUEST_HASH_SECRET: PROVIDER_DOCUMENTATION_KEY }),
      /REQUEST_HASH_SECRET: must be set in production to a secret of your own/,
    );
  });

  it('refuses published secrets while NODE_ENV is unset, even with ALLOW_DEVELOPMENT_SETTINGS=true; everything else the switch relaxes stays relaxed', () => {
    const unset = { ...PRODUCTION, NODE_ENV: undefined, ALLOW_DEVELOPMENT_SETTINGS: 'true' };
    assert.throws(
      () => loadConfig({ ...unset, PROVIDER_WEBHOOKS_SIGNING_SECRET: PROVIDER_DOCUMENTATION_KEY }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems.map((problem) => problem.split(':')[0]),
          ['PROVIDER_WEBHOOKS_SIGNING_SECRET', '(config)'],
        );
        assert.match(
          error.problems[1]!,
          /published secrets are refused while NODE_ENV is unset: .*set NODE_ENV=development beside ALLOW_DEVELOPMENT_SETTINGS=true/,
        );
        return true;
      },
    );
    for (const [name, value] of [
      ['DATA_ENCRYPTION_KEY', 'UADzT4+TdL/7B8uttdNNfjndg3KO7uXtNEpRaFnqpJE='],
      ['REQUEST_HASH_SECRET', undefined],
      ['PROVIDER_WEBHOOKS_SIGNING_SECRET', 'sk_sandbox_provider_local_dev'],
    ] as const) {
      assert.throws(() => loadConfig({ ...unset, [name]: value }), new RegExp(`${name}: `), name);
      assert.equal(
        loadConfig({ ...unset, NODE_ENV: 'development', [name]: value }).NODE_ENV,
        'development',
        `${name} with NODE_ENV=development`,
      );
    }
    // The rest of what the switch relaxes does not depend on NODE_ENV.
    assert.equal(
      loadConfig({ ...unset, PROVIDER_BASE_URL: 'http://127.0.0.1:4010', ALLOW_PRIVATE_CALLBACK_URLS: 'true' }).NODE_ENV,
      'development',
    );
  });

  it('rejects an encryption key that is not 32 bytes', () => {
    assert.throws(
      () => loadConfig({ ...DEVELOPMENT_SETTINGS, DATA_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }),
      /DATA_ENCRYPTION_KEY/,
    );
  });

  it('runs one cluster, main, on DATABASE_URL and TEMPORAL_TASK_QUEUE when DATABASE_CLUSTERS is unset', () => {
    const config = loadConfig({ ...DEVELOPMENT_SETTINGS, DATABASE_URL: 'postgres://u:p@db:5432/ledger', TEMPORAL_TASK_QUEUE: 'q' });
    assert.deepEqual(config.CLUSTERS, [{ name: 'main', databaseUrl: 'postgres://u:p@db:5432/ledger', taskQueue: 'q' }]);
    assert.equal(config.CONTROL_DATABASE_URL, 'postgres://u:p@db:5432/ledger');
  });

  it('reads DATABASE_CLUSTERS as name=url pairs: the first keeps the task queue and is DATABASE_URL and the control database', () => {
    const config = loadConfig({
      ...DEVELOPMENT_SETTINGS,
      DATABASE_CLUSTERS: 'a=postgres://u:p@db-1:5432/ledger, b=postgres://u:p@db-2:5433/ledger',
      TEMPORAL_TASK_QUEUE: 'ledger',
    });
    assert.deepEqual(config.CLUSTERS, [
      { name: 'a', databaseUrl: 'postgres://u:p@db-1:5432/ledger', taskQueue: 'ledger' },
      { name: 'b', databaseUrl: 'postgres://u:p@db-2:5433/ledger', taskQueue: 'ledger.b' },
    ]);
    assert.equal(config.DATABASE_URL, 'postgres://u:p@db-1:5432/ledger');
    assert.equal(config.CONTROL_DATABASE_URL, 'postgres://u:p@db-1:5432/ledger');
    assert.equal(
      loadConfig({ ...DEVELOPMENT_SETTINGS, DATABASE_CLUSTERS: 'a=postgres://x/l', CONTROL_DATABASE_URL: 'postgres://c/l' })
        .CONTROL_DATABASE_URL,
      'postgres://c/l',
    );
  });

  it('refuses a DATABASE_CLUSTERS entry without a name or a postgres URL, and a name given twice', () => {
    for (const value of ['postgres://x/l', 'A=postgres://x/l', 'a=http://x', 'a=postgres://x/l,a=postgres://y/l', 'a=postgres://x/l,'])
      assert.throws(() => loadConfig({ ...DEVELOPMENT_SETTINGS, DATABASE_CLUSTERS: value }), /DATABASE_CLUSTERS/, value);
  });
});
