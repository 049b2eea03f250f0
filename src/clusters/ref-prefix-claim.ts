import type { TenantDirectory } from './tenant-directory';

/**
 * Whether a new tenant may take an account-reference prefix, unique across every cluster since the front of the API
 * routes a provider webhook by it: no tenant on any cluster has it (tenants made before the directory held prefixes
 * are found only there), and the directory reserves it for the tenant under its unique constraint (so two tenants
 * made at once on two clusters cannot both take it). `holderOn`: the tenant holding a prefix on each cluster.
 */
export function createRefPrefixClaim(deps: {
  holderOn: Array<(refPrefix: string) => Promise<string | undefined>>;
  directory: Pick<TenantDirectory, 'reserveRefPrefix'>;
}): (tenantId: string, refPrefix: string) => Promise<boolean> {
  return async (tenantId, refPrefix) => {
    const holders = await Promise.all(deps.holderOn.map((holderOf) => holderOf(refPrefix)));
    if (holders.some((holder) => holder !== undefined && holder !== tenantId)) return false;
    return deps.directory.reserveRefPrefix(tenantId, refPrefix);
  };
}
