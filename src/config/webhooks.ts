import { z } from 'zod';
import { duration, durationList, flag, integer, type Refuse } from './values';

/** Outbound deliveries to tenants' callback URLs. */
export const webhooksEnv = z.object({
  WEBHOOK_RETRY_SCHEDULE: durationList('2m,5m,11m,24m,53m'),
  WEBHOOK_MAX_ATTEMPTS: integer(5, 1, 50),
  WEBHOOK_TIMEOUT: duration('10s'),
  ALLOW_PRIVATE_CALLBACK_URLS: flag(false),
});

export function refusePrivateCallbacks(config: z.output<typeof webhooksEnv>, refuse: Refuse): void {
  if (config.ALLOW_PRIVATE_CALLBACK_URLS) refuse('ALLOW_PRIVATE_CALLBACK_URLS', 'must be false in production (callbacks to private addresses are an SSRF hole)');
}
