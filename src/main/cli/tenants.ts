import { countTenants, findTenantByRefPrefix } from '../../auth/tenants.access';
import { createRefPrefixClaim } from '../../clusters/ref-prefix-claim';
import { uuidv7 } from '../../ids';
import { readPassword } from '../password-input';
import { optional, text, UsageError, type Command, type CommandCluster } from './command';

/**
 * Where a new tenant goes: the cluster named, else the one holding fewest tenants (counted on each cluster itself, so
 * tenants from before the directory count too; the first listed wins a tie). Fewest tenants, not fewest accounts: a
 * tenant's size is unknown when it is made, and a count of tenants is one index-only read where accounts would be a
 * scan of the largest table but one.
 */
async function clusterForNewTenant(clusters: CommandCluster[], named: string | undefined): Promise<CommandCluster> {
  if (named !== undefined) return clusters.find((cluster) => cluster.name === named)!;
  if (clusters.length === 1) return clusters[0]!;
  const counts = await Promise.all(clusters.map((cluster) => countTenants(cluster.db)));
  return clusters[counts.indexOf(Math.min(...counts))]!;
}

/** Tenants, their API keys, their dashboard users and their allowance of loose KYC limits. */
export const tenantCommands: Record<string, Command> = {
  'tenant:create': {
    usage:
      'tenant:create --name NAME [--cluster NAME] [--json]   (with several clusters: on the one named, else on the one holding fewest tenants)',
    options: { name: { type: 'string' } },
    required: ['name'],
    async run(context) {
      const cluster = await clusterForNewTenant(context.clusters, optional(context, 'cluster'));
      // The placement is written first, so no process ever finds the tenant's rows on a cluster the directory does not
      // name. Should the creation fail, the placement names an id no tenant has, which nothing ever asks for.
      const tenantId = uuidv7();
      await context.directory?.place(tenantId, cluster.name);
      const claimRefPrefix = context.directory
        ? createRefPrefixClaim({
            holderOn: context.clusters.map((each) => async (refPrefix) => (await findTenantByRefPrefix(each.db, refPrefix))?.id),
            directory: context.directory,
          })
        : undefined;
      const created = await cluster.services().auth.createTenant(text(context, 'name'), tenantId, claimRefPrefix);
      const where = context.clusters.length > 1 ? ` on cluster ${cluster.name}` : '';
      context.print(`tenant ${created.tenantId}${where}\napi key (shown once): ${created.apiKey}`, { ...created, cluster: cluster.name });
    },
  },
  'tenant:allow-loose-limits': {
    usage:
      "tenant:allow-loose-limits --tenant TENANT_ID [--json]   (the tenant's admins may then set KYC limits looser than the platform's for a tier)",
    options: { tenant: { type: 'string' } },
    required: ['tenant'],
    async run(context) {
      const tenantId = text(context, 'tenant');
      await context.services.kycLimits.setLooseLimitsAllowed(tenantId, true);
      context.print(`tenant ${tenantId} may set KYC limits looser than the platform's`, { tenantId, looseLimitsAllowed: true });
    },
  },
  'tenant:revoke-loose-limits': {
    usage:
      "tenant:revoke-loose-limits --tenant TENANT_ID [--json]   (each looser KYC limit the tenant set becomes the platform's, in its audit log)",
    options: { tenant: { type: 'string' } },
    required: ['tenant'],
    async run(context) {
      const tenantId = text(context, 'tenant');
      const { tightened } = await context.services.kycLimits.setLooseLimitsAllowed(tenantId, false);
      const human = `tenant ${tenantId} may no longer set KYC limits looser than the platform's; ${tightened.length ? `brought within the platform's: ${tightened.join(', ')}` : 'none of its limits was looser'}`;
      context.print(human, { tenantId, looseLimitsAllowed: false, tightened });
    },
  },
  'apikey:create': {
    usage: 'apikey:create --tenant TENANT_ID [--json]',
    options: { tenant: { type: 'string' } },
    required: ['tenant'],
    async run(context) {
      const tenantId = text(context, 'tenant');
      const apiKey = await context.services.auth.createApiKey(tenantId);
      context.print(`api key (shown once): ${apiKey}`, { tenantId, apiKey });
    },
  },
  'apikey:revoke': {
    usage: 'apikey:revoke --key-prefix PREFIX',
    options: { 'key-prefix': { type: 'string' } },
    required: ['key-prefix'],
    async run(context) {
      const revoked = await context.services.auth.revokeApiKey(text(context, 'key-prefix'));
      context.print(`revoked the key of tenant ${revoked.tenantId}`, { revoked: true, ...revoked });
    },
  },
  'user:create': {
    usage: 'user:create --tenant TENANT_ID --email EMAIL [--json]   (the password is read from stdin, or prompted for on a terminal)',
    options: { tenant: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    required: ['tenant', 'email'],
    async run(context) {
      if (context.options.password !== undefined) {
        throw new UsageError(
          '--password is refused: a password in the arguments is visible to other users (ps) and kept in shell history. Pipe it on stdin (printf %s "$PASSWORD" | … user:create …) or type it at the prompt',
        );
      }
      const created = await context.services.auth.createUser(
        text(context, 'tenant'),
        text(context, 'email'),
        await readPassword('Password for the new dashboard user: '),
      );
      context.print(`dashboard user ${created.userId}`, created);
    },
  },
};
