import knex, { type Knex } from 'knex';

/**
 * A connection to the run's database for a policy's SQL side: the builders' expressions evaluated over rows of
 * cases (jsonb_to_recordset over `:cases`, each case numbered in column `n` from 0), no tables needed. Opened in `before`, closed in `after`.
 */
export function sqlCases(): { open(): void; close(): Promise<void>; rows<T>(sql: string, cases: unknown[]): Promise<T[]> } {
  let db: Knex | undefined;
  return {
    open() {
      db = knex({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 1 } });
    },
    async close() {
      await db?.destroy();
    },
    async rows<T>(sql: string, cases: unknown[]): Promise<T[]> {
      if (!db) throw new Error('sqlCases: open() first');
      const numbered = cases.map((item, n) => ({ ...(item as object), n }));
      const result = (await db.raw(sql, {
        cases: JSON.stringify(numbered, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
      })) as { rows: T[] };
      return result.rows;
    },
  };
}
