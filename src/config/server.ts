import { z } from 'zod';
import { flag, integer } from './values';

/** The API process: where it listens, how it logs, how many copies run. */
export const serverEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
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
