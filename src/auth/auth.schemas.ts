import { z } from 'zod';
import { USER_ROLES } from '../http/roles';

export const meResponseSchema = z.object({ tenantId: z.uuid(), name: z.string() });

export const loginBodySchema = z.object({
  email: z.string().min(3).max(320),
  password: z.string().min(1).max(1000),
});

export const loginResponseSchema = z.object({
  userId: z.uuid(),
  tenantId: z.uuid(),
  email: z.string(),
  role: z.enum(USER_ROLES),
  expiresAt: z.iso.datetime(),
});
