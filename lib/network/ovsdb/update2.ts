/**
 * Applying `update2` notifications (ovsdb-server(7), "update2 notification") to decoded rows. Pure:
 * `planUpdate2` computes every new row of one notification without touching the current state, and
 * throws on anything malformed, so a caller either commits the whole notification or none of it.
 */

import { isJsonObject } from "../../foundation/json/is-json-object.ts";
import {
  type Atom,
  type ColumnValue,
  DatumError,
  decodeValue,
  defaultValue,
  type Row,
  sortedMap,
  sortedSet,
  type ValueDecoder,
  valueDecoder,
} from "./datum.ts";
import { type ColumnType, columnKind, type DatabaseSchema, type TableSchema } from "./schema.ts";

export interface RowChange {
  table: string;
  uuid: string;
  /** Undefined for an insert. */
  old: Row | undefined;
  /** Undefined for a delete. */
  new: Row | undefined;
}

export class UpdateError extends Error {}

interface ColumnDecoder {
  name: string;
  decode: ValueDecoder;
  /** The column's default, a fresh array or object each time (rows never share one). */
  fresh: () => ColumnValue;
}

function defaultMaker(type: ColumnType): () => ColumnValue {
  const value = defaultValue(type);
  if (Array.isArray(value)) return () => value.slice();
  if (value !== null && typeof value === "object") return () => ({ ...value });
  return () => value;
}

const rowDecoders = new WeakMap<TableSchema, ColumnDecoder[]>();

function columnDecoders(table: TableSchema): ColumnDecoder[] {
  let list = rowDecoders.get(table);
  if (list === undefined) {
    list = table.columnNames.flatMap((name) => {
      const type = table.columns[name]?.type;
      return type === undefined ? [] : [{ name, decode: valueDecoder(type), fresh: defaultMaker(type) }];
    });
    rowDecoders.set(table, list);
  }
  return list;
}

/** A whole row from `initial`/`insert`: columns at their default are omitted on the wire. */
export function decodeRow(table: TableSchema, uuid: string, wire: Record<string, unknown>): Row {
  const row: Row = { _uuid: uuid };
  for (const column of columnDecoders(table)) {
    const raw = wire[column.name];
    row[column.name] = raw === undefined ? column.fresh() : column.decode(raw);
  }
  return row;
}

/** The new value of one column from its `modify` diff (decision 302 states the rules). */
export function applyColumnDiff(old: ColumnValue, diff: unknown, type: ColumnType): ColumnValue {
  const kind = columnKind(type);
  if (kind === "scalar" || kind === "optional") return decodeValue(diff, type);
  const change = decodeValue(diff, type);
  if (kind === "set") {
    if (!Array.isArray(old) || !Array.isArray(change)) throw new DatumError("set diff on a non-set value");
    const result = new Set<Atom>(old);
    for (const atom of change) {
      if (result.has(atom)) result.delete(atom);
      else result.add(atom);
    }
    return sortedSet(result);
  }
  if (!isJsonObject(old) || !isJsonObject(change)) throw new DatumError("map diff on a non-map value");
  const result = new Map<string, Atom>(Object.entries(old) as [string, Atom][]);
  for (const [key, value] of Object.entries(change)) {
    // A key given with its current value is a removal; otherwise the key is added or replaced.
    if (result.get(key) === value) result.delete(key);
    else result.set(key, value as Atom);
  }
  return sortedMap(result, type.key.type);
}

function applyRowDiff(table: TableSchema, old: Row, diff: Record<string, unknown>): Row {
  const row: Row = { ...old };
  for (const [name, raw] of Object.entries(diff)) {
    const column = table.columns[name];
    if (column === undefined) continue;
    row[name] = applyColumnDiff(old[name] ?? defaultValue(column.type), raw, column.type);
  }
  return row;
}

/**
 * Every row change of one `update2` (`<table-updates2>`), computed against `lookup` and not applied.
 * Tables the schema lacks are refused: the monitor only asked for schema tables.
 */
export function planUpdate2(
  schema: DatabaseSchema,
  lookup: (table: string, uuid: string) => Row | undefined,
  update: unknown,
): RowChange[] {
  if (!isJsonObject(update)) throw new UpdateError("table-updates2 is not an object");
  const changes: RowChange[] = [];
  for (const [tableName, rows] of Object.entries(update)) {
    const table = schema.tables[tableName];
    if (table === undefined) throw new UpdateError(`update for unknown table ${tableName}`);
    if (!isJsonObject(rows)) throw new UpdateError(`${tableName}: row updates are not an object`);
    for (const [uuid, rowUpdate] of Object.entries(rows)) {
      if (!isJsonObject(rowUpdate))
        throw new UpdateError(`${tableName} ${uuid}: row update is not an object`);
      const old = lookup(tableName, uuid);
      try {
        changes.push(planRow(table, uuid, old, rowUpdate));
      } catch (error) {
        if (error instanceof UpdateError) throw error;
        throw new UpdateError(`${tableName} ${uuid}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  return changes;
}

/**
 * The rows of an initial `update2` (a monitor's first reply, or a full resync), by table, with every
 * schema table present: planUpdate2 against an empty cache without a change object per row, since a
 * full sync is committed (and reported) as a whole.
 */
export function decodeInitial(schema: DatabaseSchema, update: unknown): Map<string, Map<string, Row>> {
  if (!isJsonObject(update)) throw new UpdateError("table-updates2 is not an object");
  const tables = new Map<string, Map<string, Row>>();
  for (const name of Object.keys(schema.tables)) tables.set(name, new Map());
  for (const tableName in update) {
    const table = schema.tables[tableName];
    if (table === undefined) throw new UpdateError(`update for unknown table ${tableName}`);
    const rows = update[tableName];
    if (!isJsonObject(rows)) throw new UpdateError(`${tableName}: row updates are not an object`);
    const target = tables.get(tableName) as Map<string, Row>;
    for (const uuid in rows) {
      const rowUpdate = rows[uuid];
      if (!isJsonObject(rowUpdate))
        throw new UpdateError(`${tableName} ${uuid}: row update is not an object`);
      try {
        const row = planNew(table, uuid, undefined, rowUpdate);
        if (row !== undefined) target.set(uuid, row);
      } catch (error) {
        if (error instanceof UpdateError) throw error;
        throw new UpdateError(`${tableName} ${uuid}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  return tables;
}

function planRow(
  table: TableSchema,
  uuid: string,
  old: Row | undefined,
  rowUpdate: Record<string, unknown>,
): RowChange {
  return { table: table.name, uuid, old, new: planNew(table, uuid, old, rowUpdate) };
}

/** The row after one `<row-update2>`; undefined for a delete. */
function planNew(
  table: TableSchema,
  uuid: string,
  old: Row | undefined,
  rowUpdate: Record<string, unknown>,
): Row | undefined {
  if ("initial" in rowUpdate || "insert" in rowUpdate) {
    const wire = rowUpdate.initial ?? rowUpdate.insert;
    if (!isJsonObject(wire)) throw new UpdateError("inserted row is not an object");
    // `initial` may re-send a row we hold (monitor_cond_since with found=false replaces everything).
    if (old !== undefined && "insert" in rowUpdate) throw new UpdateError("insert of an existing row");
    return decodeRow(table, uuid, wire);
  }
  if ("modify" in rowUpdate) {
    if (old === undefined) throw new UpdateError("modify of an unknown row");
    const diff = rowUpdate.modify;
    if (!isJsonObject(diff)) throw new UpdateError("modify diff is not an object");
    return applyRowDiff(table, old, diff);
  }
  if ("delete" in rowUpdate) {
    if (old === undefined) throw new UpdateError("delete of an unknown row");
    return undefined;
  }
  throw new UpdateError("row update without initial, insert, modify or delete");
}
