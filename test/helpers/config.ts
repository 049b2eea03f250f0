import { loadConfig, type Config } from '../../src/config';

/** The test run's environment (set by scripts/test.mjs) with per-test overrides. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...process.env, ...overrides });
}
