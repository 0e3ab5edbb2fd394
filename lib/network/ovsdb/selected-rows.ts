/**
 * A database's rows read with one `select` per table (RFC 7047 §5.2.2), the way a client fills its
 * cache at a full sync (decision 342): ovsdb-server composes a select with less work than a monitor's
 * initial rows, which it first copies into a change set. The columns are asked for in the server's
 * own order, which spares it a quarter of its allocator's work.
 */
import { isJsonObject } from "../../foundation/json/is-json-object.ts";
import { decodeAtom, type Row } from "./datum.ts";
import type { DatabaseSchema } from "./schema.ts";
import { decodeRow, UpdateError } from "./update2.ts";

/** The operations of one `transact` selecting every row and column of `tables`. */
export function selectOperations(schema: DatabaseSchema, tables: readonly string[]): unknown[] {
  return tables.map((name) => ({
    op: "select",
    table: name,
    where: [],
    columns: [...(schema.tables[name]?.serverColumnNames ?? []), "_uuid"],
  }));
}

/**
 * The rows of the `transact` result of `selectOperations(schema, tables)`, decoded, by table. Throws
 * UpdateError on anything malformed (an operation's error included), before anything is kept.
 */
export function decodeSelectedRows(
  schema: DatabaseSchema,
  tables: readonly string[],
  result: unknown,
): Map<string, Map<string, Row>> {
  if (!Array.isArray(result) || result.length < tables.length) {
    throw new UpdateError("select: the result does not answer every table");
  }
  const decoded = new Map<string, Map<string, Row>>();
  tables.forEach((name, i) => {
    const table = schema.tables[name];
    const answer = result[i];
    if (table === undefined) throw new UpdateError(`select: unknown table ${name}`);
    if (!isJsonObject(answer) || !Array.isArray(answer.rows)) {
      const error = isJsonObject(answer) && typeof answer.error === "string" ? `: ${answer.error}` : "";
      throw new UpdateError(`select ${name}: no rows${error}`);
    }
    const rows = new Map<string, Row>();
    for (const wire of answer.rows as unknown[]) {
      const uuid = isJsonObject(wire) ? rowUuid(wire._uuid) : undefined;
      if (!isJsonObject(wire) || uuid === undefined)
        throw new UpdateError(`select ${name}: a row without _uuid`);
      try {
        rows.set(uuid, decodeRow(table, uuid, wire));
      } catch (error) {
        throw new UpdateError(`${name} ${uuid}: ${(error as Error).message}`, { cause: error });
      }
    }
    decoded.set(name, rows);
  });
  return decoded;
}

/** A row's `_uuid` as its wire uuid atom gives it, or undefined when it is not one. */
function rowUuid(wire: unknown): string | undefined {
  try {
    return decodeAtom(wire, { type: "uuid" }) as string;
  } catch {
    return undefined;
  }
}
