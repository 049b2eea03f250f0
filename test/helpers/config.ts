import { loadConfig, type Config } from '../../src/config';

/** The test run's environment (set by scripts/test.mjs) with per-test overrides. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...process.env, ...overrides });
}

/** The one switch that relaxes the production checks, as `npm start` and the test runner set it. */
export const DEVELOPMENT_SETTINGS = { ALLOW_DEVELOPMENT_SETTINGS: 'true' } as const;
