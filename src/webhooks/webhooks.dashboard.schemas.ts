import { z } from 'zod';
import { paginationSchema, timestampSchema } from '../http/schemas';
import { deliveryStatusSchema, processingErrorSchema, replayResponseSchema } from './webhooks.schemas';

export const deliveryListQuerySchema = z.object({
  status: deliveryStatusSchema.optional(),
  after: z.string().max(100).optional(),
});

export const deliveryListItemSchema = z.object({
  ID: z.uuid(),
  EventID: z.uuid(),
  AccountRef: z.string(),
  CallbackURL: z.string(),
  Status: deliveryStatusSchema,
  AttemptCount: z.number().int(),
  LastStatusCode: z.number().int().nullable(),
  LastError: z.string().nullable(),
  NextRetryAt: timestampSchema.nullable(),
  CreatedAt: timestampSchema,
  DeliveredAt: timestampSchema.nullable(),
  ReplayOf: z.uuid().nullable(),
  LatestReplay: z.object({ ID: z.uuid(), Status: deliveryStatusSchema }).nullable(),
});

export const deliveryListResponseSchema = z.object({
  deliveries: z.array(deliveryListItemSchema),
  pagination: paginationSchema,
});

export const processingErrorsQuerySchema = z.object({ after: z.string().max(100).optional() });

export const processingErrorsResponseSchema = z.object({
  processingErrors: z.array(processingErrorSchema),
  pagination: paginationSchema,
});

export const replayManyBodySchema = z.object({
  ids: z
    .array(z.string().max(100))
    .min(1, { error: 'ids must name at least one dead letter' })
    .max(100, { error: 'at most 100 dead letters at a time' }),
});

export const replayManyResponseSchema = z.object({
  results: z.array(
    z.object({
      ID: z.string(),
      replay: replayResponseSchema.nullable(),
      error: z.string().nullable(),
    }),
  ),
});

export const webhookSecretStatusSchema = z.object({ configured: z.boolean() });
