import { readPassword } from '../password-input';
import { text, UsageError, type Command } from './command';

/** Tenants, their API keys, their dashboard users and their allowance of loose KYC limits. */
export const tenantCommands: Record<string, Command> = {
  'tenant:create': {
    usage: 'tenant:create --name NAME [--json]',
    options: { name: { type: 'string' } },
    required: ['name'],
    async run(context) {
      const created = await context.services.auth.createTenant(text(context, 'name'));
      context.print(`tenant ${created.tenantId}\napi key (shown once): ${created.apiKey}`, created);
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
