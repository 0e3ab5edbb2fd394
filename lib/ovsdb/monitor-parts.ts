/**
 * A database's monitor asked for in parts on one session (decision 341): every table but one in a
 * first part, and that one table (a southbound's Logical_Flow, nine tenths of its rows) in one part
 * per value of an enum column, each a conditional monitor. ovsdb-server composes the replies one after
 * the other, so the client decodes each part while the server composes the next, instead of waiting
 * for one reply of the whole database and then decoding it all.
 *
 * The parts never overlap and together cover every row: the split column must be a required string
 * with an enum, so every row holds exactly one of the values. A table whose column does not fit is
 * monitored whole, in the first part.
 */
import type { Row } from "./datum.ts";
import type { DatabaseSchema } from "./schema.ts";

/** Which table to split, by which column. */
export interface MonitorSplit {
  table: string;
  column: string;
}

export interface MonitorPart {
  /** The part's monitor id, also the id its notifications carry. */
  id: string;
  /** Its `<monitor-cond-requests>`. */
  requests: Record<string, unknown>;
  /** Whether a row of `table` belongs to this part. */
  owns(table: string, row: Row): boolean;
}

/** The `<monitor-cond-requests>` for every column of `tables` (default: every table of the schema). */
export function monitorRequests(schema: DatabaseSchema, tables?: string[]): Record<string, unknown> {
  const requests: Record<string, unknown> = {};
  for (const name of tables ?? Object.keys(schema.tables)) {
    const table = schema.tables[name];
    if (table !== undefined) requests[name] = [{ columns: table.columnNames }];
  }
  return requests;
}

/** The values of `split`'s column when every row holds exactly one of them; undefined otherwise. */
function splitValues(schema: DatabaseSchema, split: MonitorSplit): string[] | undefined {
  const type = schema.tables[split.table]?.columns[split.column]?.type;
  if (type === undefined || type.value !== undefined || type.min !== 1 || type.max !== 1) return undefined;
  if (type.key.type !== "string" || type.key.enum === undefined || type.key.enum.length < 2) return undefined;
  return type.key.enum.filter((atom): atom is string => typeof atom === "string");
}

/**
 * The parts of the monitor of `tables` (default: all) of `database`: one part (with the database's
 * name as its id, as a single monitor has) when there is no split or it does not apply.
 */
export function monitorParts(
  database: string,
  schema: DatabaseSchema,
  tables?: string[],
  split?: MonitorSplit,
): MonitorPart[] {
  const names = tables ?? Object.keys(schema.tables);
  const values = split !== undefined && names.includes(split.table) ? splitValues(schema, split) : undefined;
  if (split === undefined || values === undefined) {
    return [{ id: database, requests: monitorRequests(schema, names), owns: () => true }];
  }
  const { table, column } = split;
  const first: MonitorPart = {
    id: database,
    requests: monitorRequests(
      schema,
      names.filter((name) => name !== table),
    ),
    owns: (name) => name !== table,
  };
  const columns = schema.tables[table]?.columnNames ?? [];
  return [
    first,
    ...values.map((value) => ({
      id: `${database} ${table} ${value}`,
      requests: { [table]: [{ columns, where: [[column, "==", value]] }] },
      owns: (name: string, row: Row) => name === table && row[column] === value,
    })),
  ];
}
