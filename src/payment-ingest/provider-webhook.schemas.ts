import { z } from 'zod';

/** The answer to every provider webhook the service takes in. */
export const webhookAckSchema = z.object({ received: z.literal(true) });
