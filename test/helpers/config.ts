import { loadConfig, type Config } from '../../src/config';

/** The test run's environment (set by scripts/test.mjs) with per-test overrides. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...process.env, ...overrides });
}

/** The settings that relax the production checks, as `npm start` sets them (the switch, and NODE_ENV for the published secrets). */
export const DEVELOPMENT_SETTINGS = { NODE_ENV: 'development', ALLOW_DEVELOPMENT_SETTINGS: 'true' } as const;
