import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";

/** The keys of a table's rows as drizzle declares them (camelCase). */
type ColumnKey<T extends PgTable> = keyof T["$inferInsert"] & string;

/**
 * The SQL names of some of a table's columns, in the order given, from its drizzle declaration: a
 * column list written once where the table is, never again by hand beside a COPY or a select.
 */
export function columnNames<T extends PgTable>(table: T, keys: readonly ColumnKey<T>[]): string[] {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  return keys.map((key) => {
    const column = columns[key];
    if (column === undefined) throw new RangeError(`${getTableConfig(table).name} has no column ${key}`);
    return column.name;
  });
}

/** `copy "<table>" ("<column>", …) from stdin` for some of a table's columns, in the order given. */
export function copyIntoStatement<T extends PgTable>(table: T, keys: readonly ColumnKey<T>[]): string {
  const list = columnNames(table, keys)
    .map((c) => `"${c}"`)
    .join(", ");
  return `copy "${getTableConfig(table).name}" (${list}) from stdin`;
}
