/**
 * The GET routes whose reads a replica may serve when DATABASE_REPLICA_URL is set (docs/scaling.md#read-replicas):
 * statements, balances, books and lists, through the API and the dashboard. Their services are built on the read
 * router's knex (container.ts). Everything else (writes, what money may be spent, idempotency, sign-in, rate limits)
 * stays on the primary.
 */
export const REPLICA_READ_PATHS: ReadonlySet<string> = new Set([
  // Statements, balances and balances at an instant.
  '/v1/accounts/:accountRef/statement',
  '/auth/accounts/:accountRef/statement',
  '/auth/accounts/:accountRef/statement.csv',
  '/v1/accounts/:accountRef/balance',
  '/auth/accounts/:accountRef/balance',
  '/v1/accounts/:accountRef/daily-balances',
  '/auth/accounts/:accountRef/daily-balances',
  // The books: balances by ledger account (now or at an instant) and the journal.
  '/v1/ledger/balances',
  '/auth/ledger/balances',
  '/v1/ledger/transactions',
  '/auth/ledger/transactions',
  // Lists and the records they open.
  '/v1/accounts',
  '/auth/accounts',
  '/v1/accounts/:accountRef',
  '/auth/accounts/:accountRef',
  '/auth/deficit-accounts',
  '/v1/transfers',
  '/v1/transfers/:merchantTxRef',
  '/auth/settlements',
  '/auth/settlements/:merchantTxRef',
  '/v1/transfers/internal',
  '/v1/transfers/internal/:id',
  '/auth/transfers/internal',
  '/v1/accounts/:accountRef/transfers',
  '/v1/customers',
  '/v1/customers/:id',
  '/auth/customers',
  '/auth/customers/:id',
  '/v1/beneficiaries',
  '/auth/beneficiaries',
  '/v1/webhooks/dead-letters',
  '/v1/webhooks/deliveries/:id',
  '/auth/webhooks/deliveries',
  '/auth/webhooks/deliveries/:id',
  // The dashboard's overview.
  '/auth/overview',
]);
