import type { DbOrTrx } from '../db';
import { createAuthRepo, type TenantRecord } from './auth.repo';

/** What other domains may read of a tenant, and the webhook secret the webhooks domain keeps on it: they reach tenants only through these. */
export type { TenantRecord };

export const findTenant = (db: DbOrTrx, id: string): Promise<TenantRecord | undefined> => createAuthRepo(db).findTenant(id);

/** AccountRefs carry their tenant's prefix: a payment to an unknown reference is still attributed. */
export const findTenantByRefPrefix = (db: DbOrTrx, refPrefix: string): Promise<TenantRecord | undefined> => createAuthRepo(db).findTenantByRefPrefix(refPrefix);

/** The tenant's outbound signing secret, encrypted (null: deliveries are signed with none). */
export const setTenantWebhookSecret = (db: DbOrTrx, tenantId: string, encrypted: string | null): Promise<void> => createAuthRepo(db).setWebhookSecret(tenantId, encrypted);
