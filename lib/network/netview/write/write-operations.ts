/**
 * The body of `POST /api/v1/write/preview` and `/dry-run`: row operations on the northbound
 * database, read against the server's schema and the cache into planned changes. Values take the
 * row convention of docs/ovsdb-json.md; a uuid written `@name` refers to a row the same plan inserts
 * with `"ref": "name"` (as a value, or as the target of an update: decision 345). Every atom is held to what the
 * schema says of it (plan-checks.ts); every problem is named in one 400, and a plan that would break
 * a unique index or a table's row limit is a 409 naming the operation.
 */
import { ConflictError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import { unstorableTextErrors } from "../../../foundation/json/storable-text.ts";
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
import { atomProblem, uniquenessProblems, uuidText } from "./plan-checks.ts";

const maxOperations = 1000;

const refText = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

interface WriteRequest {
  cluster: string | undefined;
  description: string;
  changes: PlannedChange[];
}

type Lookup = {
  get(table: string, uuid: string): Row | undefined;
  rows(table: string): Row[];
};

/** The `@names` a plan has declared so far, each with the table of the row it inserts. */
type Refs = ReadonlyMap<string, string>;

/**
 * Refuses a body holding a string or member name ovsdb-server cannot take (NUL, a lone surrogate),
 * naming it: such text, once sent, drops the northbound session every reader of the cluster shares.
 */
export function refuseUnstorableText(body: unknown): void {
  const found = unstorableText(body);
  if (found.length > 0) throw new ValidationError(`invalid body: ${found.slice(0, 10).join("; ")}`);
}

/** The text guard's findings (decision 16) as "<member>: <problem>", members from the value's root. */
export function unstorableText(value: unknown): string[] {
  return unstorableTextErrors(value, "").map((e) => `${e.loc.replace(/^\./, "")}: ${e.msg}`);
}

/** A value a column does not take; `member` leads from the column to the atom (`.key`, `[2]`). */
class ColumnValueError extends RangeError {
  constructor(
    message: string,
    readonly member = "",
  ) {
    super(message);
  }
}

/** Reads one value for a column; `refs` are the `@names` the plan has declared so far. */
function columnValue(value: unknown, type: ColumnType, context: { refs: Refs; lookup: Lookup }): ColumnValue {
  const atom = (a: unknown, base: BaseType, member: string, what = ""): void => {
    const fail = (message: string) => {
      throw new ColumnValueError(`${what}${message}`, member);
    };
    const problem = atomProblem(a, base);
    if (problem !== null) fail(problem);
    if (base.type !== "uuid") return;
    const text = a as string;
    if (text.startsWith("@")) {
      const table = context.refs.get(text.slice(1));
      if (table === undefined) fail(`${text} names no row inserted before it in this plan`);
      else if (base.refTable !== undefined && table !== base.refTable)
        fail(`${text} is a ${table} row, not a ${base.refTable} row`);
      return;
    }
    if (!uuidText.test(text)) fail(`${JSON.stringify(text)} is not a uuid`);
    if (base.refTable !== undefined && context.lookup.get(base.refTable, text) === undefined) {
      fail(`${text} is no ${base.refTable} row`);
    }
  };
  const count = (n: number, what: string) => {
    if (n < type.min || n > type.max) {
      const most = type.max === Number.POSITIVE_INFINITY ? "any number of" : type.max;
      throw new ColumnValueError(`takes ${type.min === most ? type.min : `${type.min} to ${most}`} ${what}`);
    }
  };
  const kind = columnKind(type);
  if (kind === "map") {
    if (!isJsonObject(value)) throw new ColumnValueError("expected an object");
    const valueType = type.value as BaseType;
    for (const [k, v] of Object.entries(value)) {
      const key = type.key.type === "integer" || type.key.type === "real" ? Number(k) : k;
      atom(key, type.key, `.${k}`, "the key ");
      atom(v, valueType, `.${k}`);
    }
    count(Object.keys(value).length, "keys");
  } else if (kind === "set") {
    if (!Array.isArray(value)) throw new ColumnValueError("expected an array");
    for (const [i, a] of value.entries()) atom(a, type.key, `[${i}]`);
    if (new Set(value).size !== value.length) throw new ColumnValueError("repeats an element");
    count(value.length, "elements");
  } else if (kind === "optional") {
    if (value !== null) atom(value, type.key, "");
  } else {
    atom(value, type.key, "");
  }
  // Through the wire form and back: sets and map keys come out in the convention's order.
  return decodeValue(encodeValue(value as ColumnValue, type), type);
}

function columnsOf(
  raw: unknown,
  table: TableSchema,
  where: string,
  context: { refs: Refs; lookup: Lookup; update: boolean },
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
      if (!(error instanceof ColumnValueError)) throw error;
      problems.push(`${where}.${name}${error.member}: ${error.message}`);
    }
  }
  return columns;
}

/**
 * The row an update or delete names: by `uuid`, by `name` where exactly one row has it, or (an update
 * only) by `@ref`, a row the plan inserts before it, which has no values read yet.
 */
function targetRow(
  op: Record<string, unknown>,
  table: TableSchema,
  where: string,
  context: { refs: Refs; lookup: Lookup },
  problems: string[],
): Row | undefined {
  const { refs, lookup } = context;
  if (typeof op.uuid === "string" && op.uuid.startsWith("@")) {
    const inserted = refs.get(op.uuid.slice(1));
    if (inserted === undefined)
      problems.push(`${where}.uuid: ${op.uuid} names no row inserted before it in this plan`);
    else if (inserted !== table.name)
      problems.push(`${where}.uuid: ${op.uuid} is a ${inserted} row, not a ${table.name} row`);
    else if (op.op === "delete")
      problems.push(
        `${where}.uuid: ${op.uuid} is inserted by this plan: leave out its insert rather than delete it`,
      );
    else return { _uuid: op.uuid };
    return undefined;
  }
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
  refuseUnstorableText(body);
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
  /** Where each change came from: `operations[i].row` or `.set`. */
  const origins: string[] = [];
  const refs = new Map<string, string>();
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
      if (typeof ref === "string") refs.set(ref, table.name);
      changes.push({ kind: "insert", table: table.name, ...(typeof ref === "string" ? { ref } : {}), row });
      origins.push(`${where}.row`);
      continue;
    }
    const target = targetRow(op, table, where, { refs, lookup }, problems);
    if (target === undefined) continue;
    const key = `${table.name} ${target._uuid}`;
    if (touched.has(key))
      problems.push(`${where}: ${table.name} ${target._uuid} is changed twice in this plan`);
    touched.add(key);
    if (kind === "delete") {
      changes.push({ kind: "delete", table: table.name, uuid: target._uuid, before: target });
      origins.push(where);
      continue;
    }
    const after = columnsOf(op.set, table, `${where}.set`, { refs, lookup, update: true }, problems);
    const before: Columns = {};
    // A row of this plan has no values read: every column set is a change.
    const inserted = target._uuid.startsWith("@");
    for (const [name, value] of Object.entries(after)) {
      if (inserted) continue;
      if (sameValue(target[name], value)) delete after[name];
      else before[name] = target[name] as ColumnValue;
    }
    if (Object.keys(after).length > 0 || Object.keys(before).length > 0) {
      changes.push({ kind: "update", table: table.name, uuid: target._uuid, before, after });
      origins.push(`${where}.set`);
    }
  }
  if (problems.length > 0)
    throw new ValidationError(`invalid operations: ${problems.slice(0, 10).join("; ")}`);
  if (changes.length === 0) throw new ValidationError("invalid operations: they change nothing");
  const clashes = uniquenessProblems(schema, changes, lookup, (i) => origins[i] ?? `operations`);
  if (clashes.length > 0)
    throw new ConflictError(`conflicting operations: ${clashes.slice(0, 10).join("; ")}`);
  return {
    cluster: typeof body.cluster === "string" ? body.cluster : undefined,
    description: typeof body.description === "string" ? body.description : "",
    changes,
  };
}
