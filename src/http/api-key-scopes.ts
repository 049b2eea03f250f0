/**
 * What an API key may do. Every /v1 route names the one scope it needs (reads default to `read`; a
 * write names its own, or the app refuses to start); `*` grants every scope, those added later included.
 * Approving money is a person's act in the dashboard, so no scope grants it.
 */
export const API_KEY_SCOPES = {
  read: 'Read everything: accounts, balances, statements, customers, transfers, settlements, webhooks, the ledger',
  'accounts:write': 'Open virtual accounts',
  'customers:write': 'Change customers and submit their KYC',
  'payouts:write': 'Pay out: settle an account, submit and cancel settlement batches, refund a payment to its payer',
  'transfers:write': 'Move money between accounts of the tenant',
  'beneficiaries:write': 'Save and remove payout destinations',
  'sweeps:write': "Set and stop an account's balance sweep",
  'split-rules:write': "Set and remove an account's split rule",
  'liens:write': 'Place and lift liens on accounts (money set aside)',
  'freezes:write': 'Freeze accounts for debits, credits or both, and lift their freezes',
  'velocity-rules:write': "Add, change and remove the tenant's velocity rules (limits on payouts in a window)",
  'webhooks:write': 'Manage webhook endpoints and replay dead letters',
  'reconciliation:write': 'Start a reconciliation run',
} as const;

export type ApiKeyScope = keyof typeof API_KEY_SCOPES;

export const ALL_SCOPES = '*';

/** A scope a key holds: a named one or `*`. */
export type GrantedScope = ApiKeyScope | typeof ALL_SCOPES;

export const API_KEY_SCOPE_NAMES = Object.keys(API_KEY_SCOPES) as [ApiKeyScope, ...ApiKeyScope[]];

export function scopesAllow(granted: readonly string[], needed: ApiKeyScope): boolean {
  return granted.includes(ALL_SCOPES) || granted.includes(needed);
}
