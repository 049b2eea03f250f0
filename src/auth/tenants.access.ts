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
