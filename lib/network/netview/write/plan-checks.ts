/**
 * What the northbound schema itself forbids, checked on a plan before anything reaches ovsdb-server
 * (issue 28 items 8 and 9, decision 344): each atom's type, text ovsdb-server cannot take (NUL, a
 * lone surrogate: it drops the session that sent it), `enum`, integer and real bounds and string
 * lengths; and over the rows the plan would leave, the tables' unique `indexes` and `maxRows`. The
 * rules come from `get_schema` (lib/network/ovsdb/schema.ts), never from a hand list, so a server of
 * another release is judged by its own schema.
 */
import { unstorableIn, unstorableMessage } from "../../../foundation/json/storable-text.ts";
import type { ColumnValue, Row } from "../../ovsdb/datum.ts";
import { type BaseType, columnKind, type DatabaseSchema, type TableSchema } from "../../ovsdb/schema.ts";
import { type PlannedChange, placeholder, rowWithDefaults } from "./plan.ts";

export const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Lookup = { rows(table: string): Row[] };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function boundsText(base: BaseType, what: string): string {
  const { minimum: min, maximum: max } = base;
  if (min !== undefined && max !== undefined) return `must be ${what} from ${min} to ${max}`;
  return min !== undefined ? `must be ${what} of at least ${min}` : `must be ${what} of at most ${max}`;
}

/**
 * What is wrong with one atom under its base type, or null. A uuid atom is only checked to be a
 * string here: whether it names a row is the caller's question.
 */
export function atomProblem(atom: unknown, base: BaseType): string | null {
  switch (base.type) {
    case "integer":
    case "real": {
      const ok = base.type === "integer" ? Number.isSafeInteger(atom) : Number.isFinite(atom);
      if (!ok || typeof atom !== "number")
        return `expected a${base.type === "integer" ? "n" : ""} ${base.type}`;
      if (base.enum !== undefined && !base.enum.includes(atom))
        return `must be one of ${base.enum.join(", ")}`;
      if (
        (base.minimum !== undefined && atom < base.minimum) ||
        (base.maximum !== undefined && atom > base.maximum)
      )
        return boundsText(base, `an ${base.type}`);
      return null;
    }
    case "boolean":
      if (typeof atom !== "boolean") return "expected a boolean";
      if (base.enum !== undefined && !base.enum.includes(atom)) return `must be ${base.enum.join(" or ")}`;
      return null;
    case "string":
    case "uuid": {
      if (typeof atom !== "string") return `expected a ${base.type}`;
      const unstorable = unstorableIn(atom);
      if (unstorable !== null) return unstorableMessage(unstorable);
      if (base.type === "uuid") return null;
      if (base.enum !== undefined && !base.enum.includes(atom))
        return `must be one of ${base.enum.join(", ")}`;
      if (base.minLength !== undefined || base.maxLength !== undefined) {
        // ovsdb-server counts code points, not UTF-16 units.
        const length = [...atom].length;
        if (base.minLength !== undefined && length < base.minLength)
          return `must be at least ${plural(base.minLength, "character")} long`;
        if (base.maxLength !== undefined && length > base.maxLength)
          return `must be at most ${plural(base.maxLength, "character")} long`;
      }
      return null;
    }
  }
}

/**
 * Every atom of a column value (in the row convention, already of the column's shape) under the
 * schema's rules, as "<member>: <problem>" lines; `where` names the column.
 */
export function valueProblems(
  value: ColumnValue,
  table: TableSchema,
  column: string,
  where: string,
): string[] {
  const type = table.columns[column]?.type;
  if (type === undefined) return [`${where}: ${table.name} has no such column`];
  const problems: string[] = [];
  const check = (atom: unknown, base: BaseType, at: string) => {
    const problem = atomProblem(atom, base);
    if (problem !== null) problems.push(`${at}: ${problem}`);
    else if (base.type === "uuid" && !uuidText.test(atom as string))
      problems.push(`${at}: ${JSON.stringify(atom)} is not a uuid`);
  };
  const kind = columnKind(type);
  if (kind === "map") {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return [`${where}: expected an object`];
    for (const [k, v] of Object.entries(value)) {
      const key = type.key.type === "integer" || type.key.type === "real" ? Number(k) : k;
      check(key, type.key, `${where} key`);
      check(v, type.value as BaseType, `${where}.${k}`);
    }
  } else if (Array.isArray(value)) {
    for (const [i, atom] of value.entries()) check(atom, type.key, `${where}[${i}]`);
  } else if (value !== null || kind === "scalar") {
    check(value, type.key, where);
  }
  return problems;
}

/** Where a change of the plan came from, for naming it: `operations[2].row`, or a table and uuid. */
type ChangeWhere = (index: number) => string;

/**
 * The unique `indexes` and `maxRows` of every table the plan inserts into or updates, judged over the
 * rows the plan would leave (the cache's rows with the plan's changes applied in order), as
 * "<member>: <problem>" lines naming the change that makes the clash.
 */
export function uniquenessProblems(
  schema: DatabaseSchema,
  changes: readonly PlannedChange[],
  lookup: Lookup,
  where: ChangeWhere,
): string[] {
  const problems: string[] = [];
  const tables = new Set(changes.filter((c) => c.kind !== "delete").map((c) => c.table));
  for (const name of tables) {
    const table = schema.tables[name];
    if (table === undefined || (table.indexes.length === 0 && table.maxRows === undefined)) continue;
    /** The rows after the plan, each with the change that last wrote it (if one did). */
    const rows = new Map<string, { row: Row; change?: number }>(
      lookup.rows(name).map((row) => [row._uuid, { row }]),
    );
    changes.forEach((change, index) => {
      if (change.table !== name) return;
      if (change.kind === "delete") {
        rows.delete(change.uuid);
      } else if (change.kind === "insert") {
        const uuid = placeholder(change, index);
        rows.set(uuid, { row: rowWithDefaults(table, uuid, change.row), change: index });
      } else {
        const now = rows.get(change.uuid);
        if (now !== undefined) rows.set(change.uuid, { row: { ...now.row, ...change.after }, change: index });
      }
    });
    if (table.maxRows !== undefined && rows.size > table.maxRows) {
      const first = changes.findIndex((c) => c.kind === "insert" && c.table === name);
      problems.push(`${where(first)}: ${name} holds at most ${plural(table.maxRows, "row")}`);
    }
    for (const index of table.indexes) {
      const holder = new Map<string, string>();
      // Rows the plan leaves alone first: a clash is named at the change that makes it.
      const order = [...rows.entries()].sort(([, a], [, b]) => (a.change ?? -1) - (b.change ?? -1));
      for (const [uuid, { row, change }] of order) {
        const key = JSON.stringify(index.map((column) => (column === "_uuid" ? uuid : row[column])));
        const other = holder.get(key);
        if (other === undefined) {
          holder.set(key, uuid);
          continue;
        }
        if (change === undefined) continue;
        const member = index.length === 1 ? `${where(change)}.${index[0]}` : where(change);
        problems.push(
          `${member}: ${name} ${other.startsWith("@") ? `row ${other} of this plan` : `row ${other}`} has the same ${index.join(", ")} (unique in the schema)`,
        );
      }
    }
  }
  return problems;
}
