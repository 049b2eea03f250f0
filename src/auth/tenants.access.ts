import { sha256 } from '../crypto';
import type { DbOrTrx } from '../db';
import { createAuthRepo, type TenantRecord } from './auth.repo';

/**
 * What other domains may read of a tenant, the webhook secret the webhooks domain keeps on it, and the platform
 * operator's allowance of KYC limits looser than the platform's: they reach tenants only through these.
 */
export type { TenantRecord };

export const findTenant = (db: DbOrTrx, id: string): Promise<TenantRecord | undefined> => createAuthRepo(db).findTenant(id);

/** AccountRefs carry their tenant's prefix: a payment to an unknown reference is still attributed. */
export const findTenantByRefPrefix = (db: DbOrTrx, refPrefix: string): Promise<TenantRecord | undefined> =>
  createAuthRepo(db).findTenantByRefPrefix(refPrefix);

/** The tenant's outbound signing secret, encrypted (null: deliveries are signed with none). */
export const setTenantWebhookSecret = (db: DbOrTrx, tenantId: string, encrypted: string | null): Promise<void> =>
  createAuthRepo(db).setWebhookSecret(tenantId, encrypted);

/**
 * Whether the tenant may set KYC limits looser than the platform's; share-locks the tenant's row until the transaction ends, so a
 * revocation waits for it.
 */
export const looseKycLimitsAllowed = (db: DbOrTrx, tenantId: string): Promise<boolean> =>
  createAuthRepo(db).looseKycLimitsAllowed(tenantId);

/** The platform operator's allowance of KYC limits looser than the platform's; false when there is no such tenant. */
export const setLooseKycLimitsAllowed = (db: DbOrTrx, tenantId: string, allowed: boolean): Promise<boolean> =>
  createAuthRepo(db).setLooseKycLimitsAllowed(tenantId, allowed);

/** The tenants with a dashboard user of that email (how a sign-in finds the cluster of its user). */
export async function tenantsOfUserEmail(db: DbOrTrx, email: string, limit: number): Promise<string[]> {
  const users = await createAuthRepo(db).findUsersByEmail(email.trim().toLowerCase(), undefined, limit);
  return users.map((user) => user.tenant_id);
}

/** The tenant a live password reset token belongs to, or undefined. */
export const tenantOfPasswordResetToken = (db: DbOrTrx, token: string): Promise<string | undefined> =>
  createAuthRepo(db).findPasswordResetTenant(sha256(token));

/** How many tenants the database holds (a new tenant goes to the cluster with fewest). */
export async function countTenants(db: DbOrTrx): Promise<number> {
  const row = (await db('tenants').count({ count: '*' }).first()) as { count: string | number } | undefined;
  return Number(row?.count ?? 0);
}
