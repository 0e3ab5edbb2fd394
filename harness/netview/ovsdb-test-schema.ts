/**
 * The OVSDB tests' one table `T`: a column of each kind the protocol code must handle (a scalar of
 * each atom type, an optional value, a strong reference, a set, a map, a map to references). Each
 * test names the columns it needs, in the order it wants them (ovsdb-server lists columns in its
 * hash order, not alphabetically). Not imported by any program.
 */
import { type DatabaseSchema, parseSchema } from "../../lib/network/ovsdb/schema.ts";

const columns = {
  name: { type: "string" },
  n: { type: "integer" },
  r: { type: "real" },
  on: { type: "boolean" },
  tag: { type: { key: "integer", min: 0, max: 1 } },
  ref: { type: { key: { type: "uuid", refTable: "T" }, min: 0, max: 1 } },
  tags: { type: { key: "string", min: 0, max: "unlimited" } },
  ids: { type: { key: "string", value: "string", min: 0, max: "unlimited" } },
  queues: { type: { key: "integer", value: { type: "uuid", refTable: "T" }, min: 0, max: "unlimited" } },
} as const;

export type TestColumn = keyof typeof columns;

/** Schema `Test` 1.0.0 with table `T` of `names` (and `more` tables as the schema file writes them). */
export function testSchema(names: readonly TestColumn[], more: Record<string, unknown> = {}): DatabaseSchema {
  return parseSchema({
    name: "Test",
    version: "1.0.0",
    tables: { T: { columns: Object.fromEntries(names.map((n) => [n, columns[n]])) }, ...more },
  });
}
