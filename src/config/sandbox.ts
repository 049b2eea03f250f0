import { z } from 'zod';
import { duration, integer, url } from './values';

/** The local stand-in for the provider: its port, where it sends webhooks, and the faults it injects. */
export const sandboxEnv = z.object({
  SANDBOX_PORT: integer(4010, 0, 65535),
  SANDBOX_WEBHOOK_URL: url('http://127.0.0.1:3000/webhooks/provider'),
  SANDBOX_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  SANDBOX_LATENCY: duration('0ms'),
  SANDBOX_REFUND_DELAY: duration('5s'),
  SANDBOX_PROCESSING_TIME: duration('30s'),
  SANDBOX_LOOKUP_LAG: duration('0ms'),
  SANDBOX_DUPLICATE_REFERENCE: z.enum(['original', 'conflict', 'described']).default('original'),
  SANDBOX_THROTTLE_RATE: z.coerce.number().min(0).max(1).default(0),
  SANDBOX_RETRY_AFTER: duration('1s'),
});
