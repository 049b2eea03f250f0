import { z } from 'zod';
import { duration, integer, type Refuse } from './values';

/** API keys, dashboard sessions and password hashing. */
export const authEnv = z.object({
  API_KEY_CACHE_TTL: duration('60s'),
  SESSION_TTL: duration('12h'),
  SESSION_IDLE_TIMEOUT: duration('30m'),
  PASSWORD_RESET_TTL: duration('24h'),
  PASSWORD_SCRYPT_LOG_N: integer(17, 14, 20),
  PASSWORD_HASH_CONCURRENCY: integer(2, 1, 16),
  PASSWORD_HASH_QUEUE: integer(32, 0, 10_000),
});

export function refuseWeakPasswordHashing(config: z.output<typeof authEnv>, refuse: Refuse): void {
  if (config.PASSWORD_SCRYPT_LOG_N < 17) refuse('PASSWORD_SCRYPT_LOG_N', 'must be at least 17 in production (OWASP)');
}
