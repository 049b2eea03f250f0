/** Every operator action the dashboard (or an /auth client) can take, as "<subject>.<verb>". */
export const AUDIT_ACTIONS = [
  'session.signed_in',
  'session.signed_out',
  'session.all_signed_out',
  'kyc.approved',
  'kyc.rejected',
  'customer.suspended',
  'customer.reactivated',
  'misdirected.assigned',
  'settlement.initiated',
  'webhook.replayed',
  'webhook_secret.set',
  'webhook_secret.removed',
  'api_key.created',
  'api_key.revoked',
  'user.created',
  'user.role_changed',
  'user.disabled',
  'user.enabled',
  'user.signed_out',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
