import { z } from 'zod';
import { timestampSchema } from '../http/schemas';
import { USER_ROLES } from '../http/roles';

export const sessionInfoSchema = z.object({
  user: z.object({ id: z.uuid(), email: z.string(), role: z.enum(USER_ROLES) }),
  tenant: z.object({ id: z.uuid(), name: z.string() }),
  idleTimeoutSeconds: z.number().int(),
});

export const signedOutSchema = z.object({ sessionsEnded: z.number().int() });

export const tenantUserSchema = z.object({
  ID: z.uuid(),
  Email: z.string(),
  Role: z.enum(USER_ROLES),
  Disabled: z.boolean(),
  CreatedAt: timestampSchema,
  LastSeenAt: timestampSchema.nullable(),
});

export const tenantUsersResponseSchema = z.object({ users: z.array(tenantUserSchema) });

const emailMessage = 'email must be an email address';
export const createUserBodySchema = z.object({
  email: z
    .string({ error: emailMessage })
    .trim()
    .max(320)
    .pipe(z.email({ error: emailMessage })),
  role: z.enum(USER_ROLES),
});

export const createdUserSchema = z.object({ user: tenantUserSchema, password: z.string() });

export const changeUserBodySchema = z.object({ role: z.enum(USER_ROLES) });

export const userParamsSchema = z.object({ id: z.string().max(100) });

export const apiKeySchema = z.object({
  ID: z.uuid(),
  Prefix: z.string(),
  CreatedAt: timestampSchema,
  RevokedAt: timestampSchema.nullable(),
});

export const apiKeysResponseSchema = z.object({ apiKeys: z.array(apiKeySchema) });

export const createdApiKeySchema = apiKeySchema.extend({ Key: z.string() });

export const apiKeyParamsSchema = z.object({ id: z.string().max(100) });
