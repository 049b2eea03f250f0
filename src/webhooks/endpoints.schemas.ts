import { z } from 'zod';
import { timestampSchema } from '../http/schemas';
import { EVENT_TYPES } from '../events/event-catalogue';

const unknownTypeMessage = `unknown event type; the known ones are ${EVENT_TYPES.join(', ')}`;

/** An event type by name, or `*` for every type (now and added later). */
const eventTypesSchema = z
  .array(z.string().max(100), { error: 'eventTypes must be a list of event types, or ["*"]' })
  .min(1, { error: 'eventTypes must name at least one event type, or "*" for all' })
  .max(50)
  .superRefine((types, ctx) => {
    for (const type of types)
      if (type !== '*' && !(EVENT_TYPES as string[]).includes(type))
        ctx.addIssue({ code: 'custom', message: `${type}: ${unknownTypeMessage}` });
  });

export const endpointParamsSchema = z.object({ id: z.string().max(100) });

export const createEndpointBodySchema = z.object({
  url: z.string().max(2048),
  description: z.string().max(500).optional(),
  eventTypes: eventTypesSchema.optional(),
  enabled: z.boolean().optional(),
});
export type CreateEndpointBody = z.output<typeof createEndpointBodySchema>;

export const updateEndpointBodySchema = z
  .object({
    url: z.string().max(2048).optional(),
    description: z.string().max(500).optional(),
    eventTypes: eventTypesSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    error: 'give at least one of url, description, eventTypes, enabled',
  });
export type UpdateEndpointBody = z.output<typeof updateEndpointBodySchema>;

export const endpointSchema = z.object({
  ID: z.uuid(),
  URL: z.string(),
  Description: z.string(),
  /** `["*"]`: every event type. */
  EventTypes: z.array(z.string()),
  Enabled: z.boolean(),
  DisabledReason: z.string().nullable(),
  Health: z.object({
    SuccessRate: z.number().nullable(),
    Delivered: z.number().int(),
    Failed: z.number().int(),
    FailingSince: timestampSchema.nullable(),
    LastError: z.string().nullable(),
    LastSuccessAt: timestampSchema.nullable(),
  }),
  SecretRotatedUntil: timestampSchema.nullable(),
  CreatedAt: timestampSchema,
});

/** The answer of a create or a rotation: the only time the secret is shown. */
export const endpointWithSecretSchema = endpointSchema.extend({ Secret: z.string() });

export const endpointListSchema = z.object({ endpoints: z.array(endpointSchema) });

/** A recovery's position: the transaction ids that bound it and the last event it queued (see recover). */
const recoveryCursorSchema = z
  .string()
  .regex(/^\d{1,20}\.\d{1,20}\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    error: 'after must be the Next of an earlier recover answer',
  });

export const recoverBodySchema = z.object({
  since: z.iso.datetime({ offset: true, error: 'since must be an ISO 8601 time' }),
  /** The `Next` of an earlier answer: continue where it stopped. */
  after: recoveryCursorSchema.optional(),
});

export const recoverResponseSchema = z.object({
  Queued: z.number().int(),
  /** Null when every event since `since` is queued; else pass it as `after` to continue. */
  Next: recoveryCursorSchema.nullable(),
});

/** The catalogue's event types with what each means, for choosing a subscription. */
export const eventTypeListSchema = z.object({ eventTypes: z.array(z.object({ type: z.string(), description: z.string() })) });
