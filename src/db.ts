import knex, { type Knex } from 'knex';
import path from 'node:path';
import type { Config } from './config';
import type { Logger } from './logger';

export type Db = Knex;
export type Trx = Knex.Transaction;
export type DbOrTrx = Knex | Knex.Transaction;

/** `acquireConnectionTimeoutMs`: how long a query waits for a connection (a read replica's is short: the primary can answer instead). */
export function createKnex(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>,
  logger?: Logger,
  options: { acquireConnectionTimeoutMs?: number } = {},
): Db {
  return knex({
    client: 'pg',
    connection: config.DATABASE_URL,
    pool: { min: 0, max: config.DATABASE_POOL_MAX },
    acquireConnectionTimeout: options.acquireConnectionTimeoutMs ?? 10_000,
    // knex otherwise writes its own warnings (failed connection attempts) straight to the console.
    ...(logger
      ? {
          log: {
            warn: (message: unknown) => logger.warn({ knex: message }, 'knex'),
            error: (message: unknown) => logger.error({ knex: message }, 'knex'),
            deprecate: (message: unknown) => logger.warn({ knex: message }, 'knex deprecation'),
            debug: (message: unknown) => logger.debug({ knex: message }, 'knex'),
          },
        }
      : {}),
  });
}

export const migrationConfig: Knex.MigratorConfig = {
  directory: path.join(__dirname, '..', 'migrations'),
  loadExtensions: ['.js'],
  tableName: 'knex_migrations',
};

/**
 * The control database's own migrations (the directory of tenant placements), recorded in a table of their own: by
 * default the control database is the first cluster's, beside the ledger's migrations.
 */
export const controlMigrationConfig: Knex.MigratorConfig = {
  directory: path.join(__dirname, '..', 'migrations-control'),
  loadExtensions: ['.js'],
  tableName: 'knex_migrations_control',
};

/**
 * Postgres error codes after which the same request may well succeed: the database unreachable or
 * shutting down, or a transaction that lost a deadlock, a serialization conflict or a lock wait.
 */
const RETRYABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  '40P01',
  '40001',
  '55P03',
  '57014',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** A database failure the caller should answer with 503 (and the provider retry), never record as final. */
export function isRetryableDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code && (RETRYABLE_CODES.has(code) || NETWORK_CODES.has(code))) return true;
  return (
    error.name === 'KnexTimeoutError' ||
    /Connection terminated|Client has encountered a connection error|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(
      error.message,
    )
  );
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint);
}

/**
 * Runs a statement as a named prepared statement, so Postgres parses and plans it once per connection
 * instead of on every call: the hot paths are large composed statements, and a read of the month-partitioned
 * history that no period bounds plans every month's partition, which costs more than running it. knex has no
 * prepared statements, so the statement goes to the knex-managed connection directly: the transaction's own
 * connection when `db` is one. One name is one text on every connection. The statement names its columns (no `*`
 * of a table): a plan kept across a migration that adds a column would fail with "cached plan must not change result
 * type".
 */
export async function runPrepared(db: DbOrTrx, name: string, sql: string, bindings: Record<string, unknown>): Promise<{ rows: unknown[] }> {
  const native = db.raw(sql, bindings).toSQL().toNative();
  const connection = (await db.client.acquireConnection()) as {
    query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
  };
  try {
    return await connection.query({ name, text: native.sql, values: native.bindings });
  } finally {
    await db.client.releaseConnection(connection);
  }
}
