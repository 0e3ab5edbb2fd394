/**
 * Decoded rows back into an `update2` of `initial` rows, the form a cache is filled from: how a
 * snapshot's rows are put into a cache (decision 352). Columns the schema lacks are left out; a
 * value that does not fit its column throws when the update is planned, before anything changes.
 */
import { encodeValue, type Row } from "./datum.ts";
import type { DatabaseSchema } from "./schema.ts";

export function initialUpdate(
  schema: DatabaseSchema,
  tables: Readonly<Record<string, readonly Row[]>>,
): Record<string, Record<string, { initial: Record<string, unknown> }>> {
  const update: Record<string, Record<string, { initial: Record<string, unknown> }>> = {};
  for (const [name, rows] of Object.entries(tables)) {
    const table = schema.tables[name];
    if (table === undefined) continue;
    const wire: Record<string, { initial: Record<string, unknown> }> = {};
    for (const row of rows) {
      const initial: Record<string, unknown> = {};
      for (const column of table.columnNames) {
        const value = row[column];
        const type = table.columns[column]?.type;
        if (value !== undefined && type !== undefined) initial[column] = encodeValue(value, type);
      }
      wire[row._uuid] = { initial };
    }
    update[name] = wire;
  }
  return update;
}
