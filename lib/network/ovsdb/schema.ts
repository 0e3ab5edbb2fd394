/**
 * The database schema as `get_schema` reports it (RFC 7047 §3.2). Everything the client does with
 * rows (decoding, defaults, diff application) is driven by it, because schemas differ by release.
 */
import { isJsonObject } from "../../foundation/json/is-json-object.ts";

export type AtomicType = "integer" | "real" | "boolean" | "string" | "uuid";

export interface BaseType {
  type: AtomicType;
  /** Only for uuid: the table a reference points to. */
  refTable?: string;
  /** Only for uuid with a refTable: a weak reference is dropped with its row, a strong one keeps it. */
  refType?: "strong" | "weak";
  /** The atoms allowed, when the schema lists them (RFC 7047 §3.2 `enum`). */
  enum?: readonly Atom[];
  /** integer (`minInteger`/`maxInteger`) or real (`minReal`/`maxReal`) bounds, inclusive. */
  minimum?: number;
  maximum?: number;
  /** string lengths in code points (`minLength`/`maxLength`), as ovsdb-server counts them. */
  minLength?: number;
  maxLength?: number;
}

export type Atom = string | number | boolean;

export interface ColumnType {
  key: BaseType;
  value?: BaseType;
  min: number;
  /** `Number.POSITIVE_INFINITY` for "unlimited". */
  max: number;
}

export interface ColumnSchema {
  type: ColumnType;
  ephemeral: boolean;
  mutable: boolean;
}

export interface TableSchema {
  name: string;
  columns: Record<string, ColumnSchema>;
  /** Column names, sorted, without `_uuid`/`_version`. */
  columnNames: string[];
  /**
   * The same names in the order the server listed them (its own hash order): a `select` asking for
   * its columns in this order costs ovsdb-server about a quarter less CPU (decision 342).
   */
  serverColumnNames: string[];
  isRoot: boolean;
  /** Sets of columns whose values no two rows may share (RFC 7047 §3.2 `indexes`). */
  indexes: string[][];
  /** At most this many rows, when the schema says so (`maxRows`). */
  maxRows?: number;
}

export interface DatabaseSchema {
  name: string;
  version: string;
  tables: Record<string, TableSchema>;
}

export class SchemaError extends Error {}

const atomicTypes = new Set<string>(["integer", "real", "boolean", "string", "uuid"]);

function parseBaseType(raw: unknown, where: string): BaseType {
  if (typeof raw === "string") {
    if (!atomicTypes.has(raw)) throw new SchemaError(`${where}: unknown atomic type ${raw}`);
    return { type: raw as AtomicType };
  }
  if (!isJsonObject(raw) || typeof raw.type !== "string" || !atomicTypes.has(raw.type)) {
    throw new SchemaError(`${where}: bad base type`);
  }
  const base: BaseType = { type: raw.type as AtomicType };
  if (typeof raw.refTable === "string") base.refTable = raw.refTable;
  if (raw.refType === "weak" || raw.refType === "strong") base.refType = raw.refType;
  else if (base.refTable !== undefined) base.refType = "strong";
  if (raw.enum !== undefined) base.enum = enumAtoms(raw.enum, where);
  const bound = (name: string): number | undefined => {
    const value = raw[name];
    if (value === undefined) return undefined;
    if (typeof value !== "number") throw new SchemaError(`${where}: ${name} is not a number`);
    return value;
  };
  const [min, max] =
    base.type === "integer"
      ? [bound("minInteger"), bound("maxInteger")]
      : base.type === "real"
        ? [bound("minReal"), bound("maxReal")]
        : [undefined, undefined];
  if (min !== undefined) base.minimum = min;
  if (max !== undefined) base.maximum = max;
  if (base.type === "string") {
    const minLength = bound("minLength");
    const maxLength = bound("maxLength");
    if (minLength !== undefined) base.minLength = minLength;
    if (maxLength !== undefined) base.maxLength = maxLength;
  }
  return base;
}

/** An `enum` is an OVSDB set datum (`["set", [...]]`) or a single atom. */
function enumAtoms(raw: unknown, where: string): Atom[] {
  const atoms = Array.isArray(raw) && raw[0] === "set" && Array.isArray(raw[1]) ? raw[1] : [raw];
  for (const atom of atoms) {
    if (typeof atom !== "string" && typeof atom !== "number" && typeof atom !== "boolean")
      throw new SchemaError(`${where}: enum holds a value that is not an atom`);
  }
  return atoms as Atom[];
}

function parseColumnType(raw: unknown, where: string): ColumnType {
  if (typeof raw === "string") return { key: parseBaseType(raw, where), min: 1, max: 1 };
  if (!isJsonObject(raw)) throw new SchemaError(`${where}: bad column type`);
  const type: ColumnType = {
    key: parseBaseType(raw.key, where),
    min: typeof raw.min === "number" ? raw.min : 1,
    max: raw.max === "unlimited" ? Number.POSITIVE_INFINITY : typeof raw.max === "number" ? raw.max : 1,
  };
  if (raw.value !== undefined) type.value = parseBaseType(raw.value, where);
  return type;
}

/** Parses the `get_schema` result; throws SchemaError on anything it cannot use. */
export function parseSchema(raw: unknown): DatabaseSchema {
  if (!isJsonObject(raw) || typeof raw.name !== "string" || !isJsonObject(raw.tables)) {
    throw new SchemaError("schema without name or tables");
  }
  const tables: Record<string, TableSchema> = {};
  for (const [tableName, rawTable] of Object.entries(raw.tables)) {
    if (!isJsonObject(rawTable) || !isJsonObject(rawTable.columns)) {
      throw new SchemaError(`table ${tableName}: no columns`);
    }
    const columns: Record<string, ColumnSchema> = {};
    for (const [columnName, rawColumn] of Object.entries(rawTable.columns)) {
      if (!isJsonObject(rawColumn)) throw new SchemaError(`${tableName}.${columnName}: bad column`);
      columns[columnName] = {
        type: parseColumnType(rawColumn.type, `${tableName}.${columnName}`),
        ephemeral: rawColumn.ephemeral === true,
        mutable: rawColumn.mutable !== false,
      };
    }
    tables[tableName] = {
      name: tableName,
      columns,
      // Sorted, as the CLIs print them, so a row reads the same in both.
      columnNames: Object.keys(columns).sort(),
      serverColumnNames: Object.keys(columns),
      isRoot: rawTable.isRoot === true,
      indexes: indexesOf(rawTable.indexes, columns, tableName),
      ...(typeof rawTable.maxRows === "number" ? { maxRows: rawTable.maxRows } : {}),
    };
  }
  return { name: raw.name, version: typeof raw.version === "string" ? raw.version : "", tables };
}

function indexesOf(raw: unknown, columns: Record<string, ColumnSchema>, table: string): string[][] {
  if (raw === undefined) return [];
  const ok =
    Array.isArray(raw) &&
    raw.every(
      (index) =>
        Array.isArray(index) &&
        index.length > 0 &&
        index.every((c) => typeof c === "string" && (columns[c] !== undefined || c === "_uuid")),
    );
  if (!ok) throw new SchemaError(`table ${table}: bad indexes`);
  return raw as string[][];
}

/** A map column, or a set/optional column (which may be empty), or a scalar with exactly one atom. */
type ColumnKind = "map" | "set" | "optional" | "scalar";

export function columnKind(type: ColumnType): ColumnKind {
  if (type.value !== undefined) return "map";
  if (type.max > 1) return "set";
  return type.min === 0 ? "optional" : "scalar";
}
