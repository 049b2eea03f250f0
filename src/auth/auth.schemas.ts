import { z } from 'zod';
import { USER_ROLES } from '../http/roles';

export const meResponseSchema = z.object({ tenantId: z.uuid(), name: z.string() });

export const loginBodySchema = z.object({
  email: z.string().min(3).max(320),
  password: z.string().min(1).max(1000),
  /** Needed only when the email and password match users of several tenants. */
  tenantId: z.uuid({ error: 'tenantId must be a tenant id' }).optional(),
});

const signedInSchema = z.object({
  /** The user has two-factor sign-in: the session does nothing until POST /auth/two-factor/sign-in is given a code. */
  secondFactorRequired: z.boolean(),
  userId: z.uuid(),
  tenantId: z.uuid(),
  email: z.string(),
  role: z.enum(USER_ROLES),
  expiresAt: z.iso.datetime(),
});

/** No session yet: the email and password match users of these tenants; sign in again with one's tenantId. */
const tenantChoiceSchema = z.object({ chooseTenant: z.array(z.object({ id: z.uuid(), name: z.string() })) });

export const loginResponseSchema = z.union([signedInSchema, tenantChoiceSchema]);
