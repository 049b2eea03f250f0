import { z } from 'zod';
import { timestampSchema } from '../http/schemas';
import { PERMISSION_NAMES, USER_ROLES } from '../http/roles';
import { ALL_SCOPES, API_KEY_SCOPE_NAMES } from '../http/api-key-scopes';
import { canonicalAddressRange } from '../net/address-ranges';

export const sessionInfoSchema = z.object({
  user: z.object({ id: z.uuid(), email: z.string(), role: z.enum(USER_ROLES), permissions: z.array(z.enum(PERMISSION_NAMES)) }),
  /** awaiting_code: give the second factor; must_enrol: the tenant requires two-factor sign-in, set it up; signed_in. */
  stage: z.enum(['awaiting_code', 'must_enrol', 'signed_in']),
  twoFactorEnrolled: z.boolean(),
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

/** The longest a rotated key's replaced secret may keep working. */
export const MAX_ROTATION_OVERLAP_MS = 7 * 24 * 3_600_000;
/** How long a rotated key's replaced secret keeps working when the rotation does not say. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3_600_000;

const grantedScopeSchema = z.enum([ALL_SCOPES, ...API_KEY_SCOPE_NAMES], {
  error: `scopes must be among ${[ALL_SCOPES, ...API_KEY_SCOPE_NAMES].join(', ')}`,
});

export const apiKeySchema = z.object({
  ID: z.uuid(),
  Name: z.string(),
  Prefix: z.string(),
  Scopes: z.array(grantedScopeSchema),
  AllowedSources: z.array(z.string()).nullable().describe('Addresses and CIDR ranges the key may be used from (null: anywhere)'),
  ExpiresAt: timestampSchema.nullable(),
  ReplacedSecretValidUntil: timestampSchema
    .nullable()
    .describe('After a rotation: until when the secret it replaced works too (null: none does)'),
  CreatedAt: timestampSchema,
  RevokedAt: timestampSchema.nullable(),
  LastUsedAt: timestampSchema.nullable().describe('Within a minute: uses are recorded at most once a minute per key and process'),
});

const addressRangeSchema = z
  .string()
  .max(50)
  .transform((text, context) => {
    const canonical = canonicalAddressRange(text);
    if (canonical === null) context.addIssue({ code: 'custom', message: `allowedSources: ${text} is not an IP address or CIDR range` });
    return canonical ?? '';
  });

const NAME_MESSAGE = 'name must be 1 to 100 characters';

/** A new key: read-only unless more scopes are asked for. */
export const createApiKeyBodySchema = z
  .object({
    name: z.string({ error: NAME_MESSAGE }).trim().min(1, { error: NAME_MESSAGE }).max(100, { error: NAME_MESSAGE }),
    scopes: z
      .array(grantedScopeSchema)
      .min(1, { error: 'scopes must name at least one scope' })
      .max(API_KEY_SCOPE_NAMES.length + 1)
      .default(['read'])
      .transform((scopes) => [...new Set(scopes)]),
    allowedSources: z
      .array(addressRangeSchema)
      .min(1, { error: 'allowedSources must name at least one address, or be left out to allow any' })
      .max(50, { error: 'allowedSources may name at most 50 addresses or ranges' })
      .transform((sources) => [...new Set(sources)])
      .optional(),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'expiresAt must be an ISO 8601 date-time' })
      .transform((text) => new Date(text))
      .optional(),
  })
  .strict();

export const apiKeyScopeListSchema = z.object({
  scopes: z.array(z.object({ scope: z.enum(API_KEY_SCOPE_NAMES), description: z.string() })),
});

export const rotateApiKeyBodySchema = z
  .object({
    replacedSecretValidUntil: z.iso
      .datetime({ offset: true, error: 'replacedSecretValidUntil must be an ISO 8601 date-time' })
      .transform((text) => new Date(text))
      .optional()
      .describe('Until when the current secret keeps working beside the new one: now up to 7 days ahead (default 24 hours ahead)'),
  })
  .strict();

export const apiKeysResponseSchema = z.object({ apiKeys: z.array(apiKeySchema) });

/** A key with its secret: answered once, at creation or rotation. */
export const createdApiKeySchema = apiKeySchema.extend({ Key: z.string() });

export const apiKeyParamsSchema = z.object({ id: z.string().max(100) });
