import { z } from 'zod';
import { duration, durationList, flag, integer, type Refuse } from './values';

/** Outbound deliveries to tenants' callback URLs. */
export const webhooksEnv = z.object({
  WEBHOOK_RETRY_SCHEDULE: durationList('2m,5m,11m,24m,53m'),
  WEBHOOK_MAX_ATTEMPTS: integer(5, 1, 50),
  WEBHOOK_TIMEOUT: duration('10s'),
  ALLOW_PRIVATE_CALLBACK_URLS: flag(false),
  /** An endpoint that has failed every delivery for this long is disabled (and the tenant told). */
  WEBHOOK_ENDPOINT_DISABLE_AFTER: duration('5d'),
  /** After a secret rotation, the previous secret still signs (beside the new one) for this long. */
  WEBHOOK_SECRET_ROTATION_OVERLAP: duration('24h'),
  /** How often the worker turns newly recorded events into deliveries to subscribed endpoints. */
  EVENT_DISPATCH_INTERVAL: duration('1s'),
  /** The most events one recover call re-sends; the answer says where the next call continues. */
  WEBHOOK_RECOVER_MAX_EVENTS: integer(1000, 1, 100000),
});

export function refusePrivateCallbacks(config: z.output<typeof webhooksEnv>, refuse: Refuse): void {
  if (config.ALLOW_PRIVATE_CALLBACK_URLS)
    refuse('ALLOW_PRIVATE_CALLBACK_URLS', 'must be false in production (callbacks to private addresses are an SSRF hole)');
}
