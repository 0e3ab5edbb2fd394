import type { PendingQuery, Row, Sql } from "postgres";

/**
 * `and <column> = <value>` for each of `columns` the filter gives a value, nothing for one it leaves
 * out: how every paged list narrows by exact values. Columns are the filter's member names, so a list
 * names each once.
 */
export function equalFilters<K extends string>(
  sql: Sql,
  filter: { readonly [k in K]?: string | undefined },
  columns: readonly K[],
): PendingQuery<Row[]> {
  return columns.reduce((conditions, column) => {
    const value = filter[column];
    // Widened: a generic column would pick the typed helper overload of `sql(...)`, not an identifier.
    const name: string = column;
    return value === undefined ? conditions : sql`${conditions} and ${sql(name)} = ${value}`;
  }, sql``);
}
