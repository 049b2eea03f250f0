import { z } from 'zod';
import { paginationSchema, timestampSchema } from '../http/schemas';
import { AUDIT_ACTIONS } from './audit-actions';

export const auditEntrySchema = z.object({
  ID: z.uuid(),
  Actor: z.string(),
  UserID: z.uuid().nullable(),
  Action: z.enum(AUDIT_ACTIONS),
  TargetType: z.string(),
  TargetID: z.string().nullable(),
  Detail: z.record(z.string(), z.unknown()),
  At: timestampSchema,
});

export const auditLogQuerySchema = z.object({
  action: z.enum(AUDIT_ACTIONS).optional(),
  after: z.string().max(100).optional(),
});

export const auditLogResponseSchema = z.object({
  entries: z.array(auditEntrySchema),
  pagination: paginationSchema,
});
