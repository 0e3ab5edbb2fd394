/**
 * The body of `POST /api/v1/write/preview` and `/dry-run`: row operations on the northbound
 * database, read against the server's schema and the cache into planned changes. Values take the
 * row convention of docs/ovsdb-json.md; a uuid written `@name` refers to a row the same plan inserts
 * with `"ref": "name"`. Every problem is named in one 400.
 */
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import { type ColumnValue, decodeValue, encodeValue, type Row } from "../../ovsdb/datum.ts";
import { sameValue } from "../../ovsdb/row-diff.ts";
import {
  type BaseType,
  type ColumnType,
  columnKind,
  type DatabaseSchema,
  type TableSchema,
} from "../../ovsdb/schema.ts";
import type { Columns, PlannedChange } from "./plan.ts";

export const maxOperations = 1000;

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const refText = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface WriteRequest {
  cluster: string | undefined;
  description: string;
  changes: PlannedChange[];
}

type Lookup = {
  get(table: string, uuid: string): Row | undefined;
  rows(table: string): Row[];
};

/** Reads one value for a column; `refs` are the `@names` the plan has declared so far. */
export function columnValue(
  value: unknown,
  type: ColumnType,
  context: { refs: ReadonlySet<string>; lookup: Lookup },
): ColumnValue {
  const atom = (a: unknown, base: BaseType): void => {
    const ok =
      base.type === "integer"
        ? Number.isSafeInteger(a)
        : base.type === "real"
          ? typeof a === "number" && Number.isFinite(a)
          : base.type === "boolean"
            ? typeof a === "boolean"
            : typeof a === "string";
    if (!ok) throw new RangeError(`expected a ${base.type}, got ${JSON.stringify(a)}`);
    if (base.type !== "uuid") return;
    const text = a as string;
    if (text.startsWith("@")) {
      if (!context.refs.has(text.slice(1)))
        throw new RangeError(`${text} names no row inserted before it in this plan`);
      return;
    }
    if (!uuidText.test(text)) throw new RangeError(`${JSON.stringify(text)} is not a uuid`);
    if (base.refTable !== undefined && context.lookup.get(base.refTable, text) === undefined) {
      throw new RangeError(`${text} is no ${base.refTable} row`);
    }
  };
  const kind = columnKind(type);
  if (kind === "map") {
    if (!isJsonObject(value)) throw new RangeError("expected an object");
    const valueType = type.value as BaseType;
    for (const [k, v] of Object.entries(value)) {
      atom(type.key.type === "integer" || type.key.type === "real" ? Number(k) : k, type.key);
      atom(v, valueType);
    }
    if (Object.keys(value).length > type.max) throw new RangeError(`at most ${type.max} keys`);
  } else if (kind === "set") {
    if (!Array.isArray(value)) throw new RangeError("expected an array");
    for (const a of value) atom(a, type.key);
    if (new Set(value).size !== value.length) throw new RangeError("repeats an element");
    if (value.length < type.min || value.length > type.max) {
      throw new RangeError(
        `takes ${type.min} to ${type.max === Number.POSITIVE_INFINITY ? "any number of" : type.max} elements`,
      );
    }
  } else if (kind === "optional") {
    if (value !== null) atom(value, type.key);
  } else {
    atom(value, type.key);
  }
  // Through the wire form and back: sets and map keys come out in the convention's order.
  return decodeValue(encodeValue(value as ColumnValue, type), type);
}

function columnsOf(
  raw: unknown,
  table: TableSchema,
  where: string,
  context: { refs: ReadonlySet<string>; lookup: Lookup; update: boolean },
  problems: string[],
): Columns {
  const columns: Columns = {};
  if (!isJsonObject(raw) || Object.keys(raw).length === 0) {
    problems.push(`${where}: must be an object of one or more columns`);
    return columns;
  }
  for (const [name, value] of Object.entries(raw)) {
    const column = table.columns[name];
    if (column === undefined) {
      problems.push(`${where}.${name}: ${table.name} has no such column`);
      continue;
    }
    if (context.update && !column.mutable) {
      problems.push(`${where}.${name}: not mutable once the row exists`);
      continue;
    }
    try {
      columns[name] = columnValue(value, column.type, context);
    } catch (error) {
      problems.push(`${where}.${name}: ${(error as Error).message}`);
    }
  }
  return columns;
}

/** The row an update or delete names: by `uuid`, or by `name` where exactly one row has it. */
function targetRow(
  op: Record<string, unknown>,
  table: TableSchema,
  where: string,
  lookup: Lookup,
  problems: string[],
) {
  if (typeof op.uuid === "string") {
    const row = uuidText.test(op.uuid) ? lookup.get(table.name, op.uuid) : undefined;
    if (row === undefined) problems.push(`${where}.uuid: no ${table.name} row ${op.uuid}`);
    return row;
  }
  if (typeof op.name === "string" && table.columns.name !== undefined) {
    const rows = lookup.rows(table.name).filter((r) => r.name === op.name);
    if (rows.length !== 1)
      problems.push(`${where}.name: ${rows.length} ${table.name} rows are named ${JSON.stringify(op.name)}`);
    return rows.length === 1 ? rows[0] : undefined;
  }
  problems.push(`${where}: needs "uuid"${table.columns.name === undefined ? "" : ' or "name"'}`);
  return undefined;
}

/** Reads the body into planned changes against the NB schema and the rows of the cache. */
export function readWriteRequest(body: unknown, schema: DatabaseSchema, lookup: Lookup): WriteRequest {
  if (!isJsonObject(body)) throw new ValidationError('invalid body: expected {"operations": [...]}');
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (!["cluster", "description", "operations"].includes(key)) problems.push(`${key}: not a member`);
  }
  if (body.cluster !== undefined && typeof body.cluster !== "string")
    problems.push("cluster: must be a string");
  if (
    body.description !== undefined &&
    (typeof body.description !== "string" || body.description.length > 500)
  ) {
    problems.push("description: must be a string of at most 500 characters");
  }
  const ops = body.operations;
  if (!Array.isArray(ops) || ops.length === 0 || ops.length > maxOperations) {
    problems.push(`operations: must be an array of 1 to ${maxOperations} operations`);
  }
  const changes: PlannedChange[] = [];
  const refs = new Set<string>();
  const touched = new Set<string>();
  for (const [i, op] of (Array.isArray(ops) ? ops : []).entries()) {
    const where = `operations[${i}]`;
    if (!isJsonObject(op)) {
      problems.push(`${where}: must be an object`);
      continue;
    }
    const table = typeof op.table === "string" ? schema.tables[op.table] : undefined;
    if (table === undefined) {
      problems.push(`${where}.table: not a table of ${schema.name}`);
      continue;
    }
    const allowed = {
      insert: ["op", "table", "row", "ref"],
      update: ["op", "table", "uuid", "name", "set"],
      delete: ["op", "table", "uuid", "name"],
    };
    const kind = op.op;
    if (kind !== "insert" && kind !== "update" && kind !== "delete") {
      problems.push(`${where}.op: must be insert, update or delete`);
      continue;
    }
    for (const key of Object.keys(op))
      if (!allowed[kind].includes(key)) problems.push(`${where}.${key}: not a member of ${kind}`);
    if (kind === "insert") {
      const ref = op.ref;
      if (ref !== undefined && (typeof ref !== "string" || !refText.test(ref) || refs.has(ref))) {
        problems.push(`${where}.ref: must be a new name of letters, digits and _`);
      }
      const row = columnsOf(op.row, table, `${where}.row`, { refs, lookup, update: false }, problems);
      if (typeof ref === "string") refs.add(ref);
      changes.push({ kind: "insert", table: table.name, ...(typeof ref === "string" ? { ref } : {}), row });
      continue;
    }
    const target = targetRow(op, table, where, lookup, problems);
    if (target === undefined) continue;
    const key = `${table.name} ${target._uuid}`;
    if (touched.has(key))
      problems.push(`${where}: ${table.name} ${target._uuid} is changed twice in this plan`);
    touched.add(key);
    if (kind === "delete") {
      changes.push({ kind: "delete", table: table.name, uuid: target._uuid, before: target });
      continue;
    }
    const after = columnsOf(op.set, table, `${where}.set`, { refs, lookup, update: true }, problems);
    const before: Columns = {};
    for (const [name, value] of Object.entries(after)) {
      if (sameValue(target[name], value)) delete after[name];
      else before[name] = target[name] as ColumnValue;
    }
    if (Object.keys(after).length > 0 || Object.keys(before).length > 0) {
      changes.push({ kind: "update", table: table.name, uuid: target._uuid, before, after });
    }
  }
  if (problems.length > 0)
    throw new ValidationError(`invalid operations: ${problems.slice(0, 10).join("; ")}`);
  if (changes.length === 0) throw new ValidationError("invalid operations: they change nothing");
  return {
    cluster: typeof body.cluster === "string" ? body.cluster : undefined,
    description: typeof body.description === "string" ? body.description : "",
    changes,
  };
}
