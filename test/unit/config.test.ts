import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config';

describe('config', () => {
  it('runs with no variables set, on local defaults', () => {
    const config = loadConfig({});
    assert.equal(config.PORT, 3000);
    assert.equal(config.TEMPORAL_NAMESPACE, 'default');
    assert.deepEqual(config.WEBHOOK_RETRY_SCHEDULE, [2, 5, 11, 24, 53].map((minutes) => minutes * 60_000));
    assert.equal(config.WEBHOOK_MAX_ATTEMPTS, 5);
    assert.equal(config.SETTLEMENT_MAX_ATTEMPTS, 5);
    assert.equal(config.CONFIRMATION_WINDOW, 30 * 60_000);
    assert.equal(config.ALLOW_PRIVATE_CALLBACK_URLS, false);
    assert.ok(Object.isFrozen(config));
  });

  it('parses durations with units and lists of them', () => {
    const config = loadConfig({ CONFIRMATION_WINDOW: '500ms', SETTLEMENT_RETRY_SCHEDULE: '20s, 2m,1h', SWEEP_GRACE: '1.5s' });
    assert.equal(config.CONFIRMATION_WINDOW, 500);
    assert.deepEqual(config.SETTLEMENT_RETRY_SCHEDULE, [20_000, 120_000, 3_600_000]);
    assert.equal(config.SWEEP_GRACE, 1_500);
  });

  it('names every bad variable in one error', () => {
    const error = (() => {
      try {
        loadConfig({ PORT: 'eighty', WEBHOOK_RETRY_SCHEDULE: '2m,soon', LOG_LEVEL: 'loud', CONFIRMATION_WINDOW: '30' });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(error instanceof ConfigError);
    for (const name of ['PORT', 'WEBHOOK_RETRY_SCHEDULE', 'LOG_LEVEL', 'CONFIRMATION_WINDOW']) {
      assert.ok(error.problems.some((problem) => problem.startsWith(`${name}:`)), `${name} missing from ${error.message}`);
    }
    assert.equal(error.problems.length, 4);
  });

  it('treats an empty variable as unset', () => {
    assert.equal(loadConfig({ PORT: '' }).PORT, 3000);
  });

  it('refuses the public development secrets in production', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.ok(error.problems.some((problem) => problem.startsWith('DATA_ENCRYPTION_KEY:')));
      assert.ok(error.problems.some((problem) => problem.startsWith('PROVIDER_WEBHOOKS_SIGNING_SECRET:')));
      return true;
    });
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.equal(loadConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key, PROVIDER_WEBHOOKS_SIGNING_SECRET: 'a-real-secret-from-the-provider' }).NODE_ENV, 'production');
  });

  it('rejects an encryption key that is not 32 bytes', () => {
    assert.throws(() => loadConfig({ DATA_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }), /DATA_ENCRYPTION_KEY/);
  });
});
