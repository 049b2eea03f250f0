import { z } from 'zod';
import { flag, integer } from './values';

/** The API process: where it listens, how it logs, how many copies run. */
export const serverEnv = z.object({
  // Unset: production, unless ALLOW_DEVELOPMENT_SETTINGS=true (then development); see loadConfig.
  NODE_ENV: z.enum(['development', 'test', 'production']).optional(),
  /**
   * The one switch that relaxes the production checks (published example secrets, the sandbox
   * provider, plaintext Temporal beyond loopback...) for local development and the tests; ignored
   * with NODE_ENV=production, and published secrets stay refused unless NODE_ENV is set too.
   */
  ALLOW_DEVELOPMENT_SETTINGS: flag(false),
  HOST: z.string().default('0.0.0.0'),
  PORT: integer(3000, 0, 65535),
  PUBLIC_URL: z.url().optional(),
  TRUST_PROXY: flag(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Unset: on outside production (the OpenAPI document cannot drift), off in production (no cost per request).
  RESPONSE_SCHEMA_CHECKS: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((text) => (text === undefined ? undefined : ['true', '1', 'yes'].includes(text))),
  API_PROCESSES: integer(1, 1, 64),
});
