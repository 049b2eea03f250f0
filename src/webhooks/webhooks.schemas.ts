import { z } from 'zod';
import { paginationSchema, timestampSchema } from '../http/schemas';

export const webhookSecretBodySchema = z.object({
  secret: z.string().min(24, { error: 'secret must be at least 24 characters' }).max(256).optional(),
});

export const webhookSecretResponseSchema = z.object({ secret: z.string() });

export const deadLettersQuerySchema = z.object({
  after: z.string().max(100).optional(),
  processingErrorsAfter: z.string().max(100).optional(),
});

const deadLetterSchema = z.object({
  ID: z.uuid(),
  CallbackURL: z.string(),
  Status: z.literal('dead_letter'),
  AttemptCount: z.number().int(),
  LastError: z.string(),
  NextRetryAt: z.null(),
  CreatedAt: timestampSchema,
});

export const processingErrorSchema = z.object({
  ID: z.uuid(),
  RequestID: z.string().nullable(),
  AccountRef: z.string().nullable(),
  Error: z.string(),
  ReceivedAt: timestampSchema,
});

export const deadLettersResponseSchema = z.object({
  deadLetters: z.array(deadLetterSchema),
  processingErrors: z.array(processingErrorSchema),
  pagination: paginationSchema,
  processingErrorsPagination: paginationSchema,
});

export const deliveryParamsSchema = z.object({ id: z.string().max(100) });

export const deliveryStatusSchema = z.enum(['pending', 'retrying', 'succeeded', 'dead_letter', 'cancelled']);

export const deliverySchema = z.object({
  ID: z.uuid(),
  EventID: z.uuid(),
  CallbackURL: z.string(),
  Status: deliveryStatusSchema,
  AttemptCount: z.number().int(),
  LastError: z.string().nullable(),
  NextRetryAt: timestampSchema.nullable(),
  CreatedAt: timestampSchema,
  DeliveredAt: timestampSchema.nullable(),
  ReplayOf: z.uuid().nullable(),
  Attempts: z.array(
    z.object({
      Attempt: z.number().int(),
      AttemptedAt: timestampSchema,
      StatusCode: z.number().int().nullable(),
      Error: z.string().nullable(),
      DurationMs: z.number().int(),
    }),
  ),
});

export const replayResponseSchema = z.object({
  ID: z.uuid(),
  EventID: z.uuid(),
  Status: deliveryStatusSchema,
  ReplayOf: z.uuid(),
});
