import { ACCOUNT_REF_RE } from '../accounts/accounts.service';
import { findTenantByRefPrefix, tenantOfPasswordResetToken, tenantsOfUserEmail } from '../auth/tenants.access';
import type { Db } from '../db';
import { tenantOfProviderRef } from '../settlements/settlements.access';

/** Sign-in looks at this many tenants of one email on each cluster, as the sign-in itself does. */
const TENANTS_PER_EMAIL = 10;

/**
 * What one cluster knows of the tenant behind a request that carries no key or session: a provider webhook's account
 * or payout, a sign-in's email, a reset token. The front of the API asks every cluster when it has not seen it yet.
 */
export function createRequestTenants(db: Db) {
  return {
    async ofAccountRef(accountRef: string): Promise<string | undefined> {
      const prefix = ACCOUNT_REF_RE.exec(accountRef)?.[1];
      return prefix ? (await findTenantByRefPrefix(db, prefix))?.id : undefined;
    },
    ofProviderRef: (providerRef: string): Promise<string | undefined> => tenantOfProviderRef(db, providerRef),
    ofEmail: (email: string): Promise<string[]> => tenantsOfUserEmail(db, email, TENANTS_PER_EMAIL),
    ofPasswordResetToken: (token: string): Promise<string | undefined> => tenantOfPasswordResetToken(db, token),
  };
}

export type RequestTenants = ReturnType<typeof createRequestTenants>;
