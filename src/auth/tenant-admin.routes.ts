import type { AuditLog } from '../audit/audit-log';
import { presentAuditEntry } from '../audit/audit.presenter';
import { auditLogQuerySchema, auditLogResponseSchema } from '../audit/audit.schemas';
import type { Config } from '../config';
import { API_KEY_SCOPES, type GrantedScope } from '../http/api-key-scopes';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { permissionsOf } from '../http/roles';
import { paginate, uuidCursor } from '../http/pagination';
import type { ApiKeyRecord, TenantUserRecord } from './auth.repo';
import type { ApiKeysService } from './api-keys.service';
import type { AuthService } from './auth.service';
import {
  apiKeyParamsSchema,
  apiKeySchema,
  apiKeyScopeListSchema,
  apiKeysResponseSchema,
  changeUserBodySchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
  rotateApiKeyBodySchema,
  createdUserSchema,
  createUserBodySchema,
  sessionInfoSchema,
  signedOutSchema,
  tenantUserSchema,
  tenantUsersResponseSchema,
  userParamsSchema,
} from './tenant-admin.schemas';
import { clearSessionCookie } from './session-cookie';
import type { TenantUsersService } from './tenant-users.service';

const AUDIT_PAGE_SIZE = 50;

const presentUser = (user: TenantUserRecord) => ({
  ID: user.id,
  Email: user.email,
  Role: user.role,
  Disabled: user.disabled_at !== null,
  CreatedAt: user.created_at.toISOString(),
  LastSeenAt: user.last_seen_at?.toISOString() ?? null,
});

const presentApiKey = (key: ApiKeyRecord) => ({
  ID: key.id,
  Name: key.name,
  Prefix: key.prefix,
  Scopes: key.scopes as GrantedScope[],
  AllowedSources: key.allowed_sources,
  ExpiresAt: key.expires_at?.toISOString() ?? null,
  ReplacedSecretValidUntil: key.replaced_key_valid_until?.toISOString() ?? null,
  CreatedAt: key.created_at.toISOString(),
  RevokedAt: key.revoked_at?.toISOString() ?? null,
  LastUsedAt: key.last_used_at?.toISOString() ?? null,
});

/** Who am I, signing out everywhere, the tenant's users and API keys (admins), and the audit log. */
export function tenantAdminRoutes(deps: {
  auth: AuthService;
  users: TenantUsersService;
  apiKeys: ApiKeysService;
  audit: AuditLog;
  config: Pick<Config, 'SESSION_IDLE_TIMEOUT' | 'NODE_ENV'>;
}): RouteDefinition[] {
  const { auth, users, apiKeys, audit, config } = deps;
  const userAction = (path: string, summary: string, act: (actor: ReturnType<typeof userOf>, id: string) => Promise<TenantUserRecord>) =>
    defineRoute({
      method: 'post',
      path,
      summary,
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: userParamsSchema,
      responses: { 200: { description: 'The user', schema: tenantUserSchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => ({ status: 200, body: presentUser(await act(userOf(ctx), params.id)) }),
    });

  return [
    defineRoute({
      method: 'get',
      path: '/auth/session',
      summary: 'Who is signed in, for which tenant, how far along signing in, and the idle timeout',
      tag: 'dashboard',
      auth: 'session',
      stages: ['awaiting_code', 'must_enrol', 'signed_in'],
      responses: { 200: { description: 'The session', schema: sessionInfoSchema } },
      handle: async ({ ctx }) => {
        const user = userOf(ctx);
        const tenant = await auth.findTenant(user.tenantId);
        return {
          status: 200,
          body: {
            user: { id: user.id, email: user.email, role: user.role, permissions: permissionsOf(user.role) },
            stage: user.stage,
            twoFactorEnrolled: user.twoFactorEnrolled,
            tenant: { id: tenant.id, name: tenant.name },
            idleTimeoutSeconds: Math.round(config.SESSION_IDLE_TIMEOUT / 1000),
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/sessions/sign-out-all',
      summary: 'Ends every session of the signed-in user, this one included',
      tag: 'dashboard',
      auth: 'session',
      permission: 'read',
      responses: { 200: { description: 'How many sessions ended', schema: signedOutSchema } },
      handle: async ({ ctx }) => {
        const user = userOf(ctx);
        const sessionsEnded = await users.signOut(user, user.id);
        clearSessionCookie(ctx, config);
        return { status: 200, body: { sessionsEnded } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/users',
      summary: "The tenant's dashboard users",
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      responses: { 200: { description: 'The users, oldest first', schema: tenantUsersResponseSchema } },
      handle: async ({ ctx }) => ({ status: 200, body: { users: (await users.list(userOf(ctx).tenantId)).map(presentUser) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/users',
      summary: 'Add a dashboard user with a generated password, shown once',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      body: createUserBodySchema,
      responses: { 201: { description: 'The user and its first password', schema: createdUserSchema } },
      errors: [400, 409],
      handle: async ({ body, ctx }) => {
        const created = await users.create(userOf(ctx), body.email, body.role);
        return { status: 201, body: { user: presentUser(created.user), password: created.password } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/auth/users/:id',
      summary: "Change a user's role (not your own)",
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: userParamsSchema,
      body: changeUserBodySchema,
      responses: { 200: { description: 'The user', schema: tenantUserSchema } },
      errors: [400, 404, 409],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentUser(await users.changeRole(userOf(ctx), params.id, body.role)),
      }),
    }),
    userAction('/auth/users/:id/disable', 'Disable a user (not yourself): signs them out and refuses their sign-in', (actor, id) =>
      users.setDisabled(actor, id, true),
    ),
    userAction('/auth/users/:id/enable', 'Enable a disabled user again', (actor, id) => users.setDisabled(actor, id, false)),
    defineRoute({
      method: 'post',
      path: '/auth/users/:id/sign-out',
      summary: 'End every session of a user of the tenant',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: userParamsSchema,
      responses: { 200: { description: 'How many sessions ended', schema: signedOutSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: { sessionsEnded: await users.signOut(userOf(ctx), params.id) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/api-keys',
      summary: "The tenant's API keys (prefixes only), newest first",
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      responses: { 200: { description: 'The keys', schema: apiKeysResponseSchema } },
      handle: async ({ ctx }) => ({ status: 200, body: { apiKeys: (await apiKeys.list(userOf(ctx).tenantId)).map(presentApiKey) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/api-key-scopes',
      summary: 'The scopes an API key can hold, with what each grants (`*` grants them all)',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      responses: { 200: { description: 'Read first, then each write', schema: apiKeyScopeListSchema } },
      handle: async () => ({
        status: 200,
        body: {
          scopes: Object.entries(API_KEY_SCOPES).map(([scope, description]) => ({
            scope: scope as keyof typeof API_KEY_SCOPES,
            description,
          })),
        },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/api-keys',
      summary: 'Create an API key (read-only unless `scopes` says more); the key is in this answer only',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      body: createApiKeyBodySchema,
      responses: { 201: { description: 'The key, shown once', schema: createdApiKeySchema } },
      errors: [400],
      handle: async ({ body, ctx }) => {
        const created = await apiKeys.create(userOf(ctx), body);
        return { status: 201, body: { ...presentApiKey(created.record), Key: created.key } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/api-keys/:id/rotate',
      summary:
        'A new secret for an API key, in this answer only; the secret it had keeps working until `replacedSecretValidUntil` (24 hours by default, 7 days at most)',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: apiKeyParamsSchema,
      body: rotateApiKeyBodySchema,
      responses: { 200: { description: 'The key with its new secret, shown once', schema: createdApiKeySchema } },
      errors: [400, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const rotated = await apiKeys.rotate(userOf(ctx), params.id, body.replacedSecretValidUntil);
        return { status: 200, body: { ...presentApiKey(rotated.record), Key: rotated.key } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/api-keys/:id/revoke',
      summary: 'Revoke an API key: /v1 refuses it from now on',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: apiKeyParamsSchema,
      responses: { 200: { description: 'The revoked key', schema: apiKeySchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: presentApiKey(await apiKeys.revoke(userOf(ctx), params.id)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/audit-log',
      summary: 'Every operator action of the tenant, newest first',
      tag: 'dashboard',
      auth: 'session',
      query: auditLogQuerySchema,
      responses: { 200: { description: 'A page of the audit log', schema: auditLogResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const rows = await audit.list(userOf(ctx).tenantId, {
          beforeId: uuidCursor(query.after),
          limit: AUDIT_PAGE_SIZE + 1,
          action: query.action,
        });
        const page = paginate(rows, AUDIT_PAGE_SIZE, (row) => row.id);
        return { status: 200, body: { entries: page.items.map(presentAuditEntry), pagination: page.pagination } };
      },
    }),
  ];
}
