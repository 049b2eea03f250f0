/**
 * A recursive CTE, named `cte`, listing each distinct `column` value of the `table` rows that match
 * `where`, in order, one index probe per value (a "loose index scan": Postgres has no skip scan of its
 * own), so its cost follows the number of values, not of rows. Needs an index on `column` whose
 * predicate covers `where`. Its last row is NULL: callers filter it out. For `WITH RECURSIVE`; the
 * arguments are SQL written here, never input. (Unqualified names in the inner SELECT are the inner
 * table's: the innermost scope wins.)
 */
export function looseIndexScan(cte: string, table: string, column: string, where: string): string {
  return `${cte} AS (
    (SELECT ${column} FROM ${table} WHERE ${where} ORDER BY ${column} LIMIT 1)
    UNION ALL
    SELECT (SELECT ${column} FROM ${table} WHERE ${where} AND ${column} > ${cte}.${column} ORDER BY ${column} LIMIT 1)
      FROM ${cte} WHERE ${cte}.${column} IS NOT NULL
  )`;
}
