/**
 * OVSDB values on the wire (RFC 7047 §5.1) and the one JSON convention the API serves them in
 * (docs/ovsdb-json.md, decision 301):
 *
 * - uuid atoms (row ids and references) are bare strings;
 * - a scalar column (min 1, max 1) is its atom;
 * - an optional column (min 0, max 1) is its atom or `null`;
 * - a set column (max > 1) is an array, sorted, `[]` when empty;
 * - a map column is an object, keys as strings (integer keys in decimal), sorted by key.
 */
import { type AtomicType, type BaseType, type ColumnType, columnKind } from "./schema.ts";

export type Atom = string | number | boolean;
export type ColumnValue = Atom | null | Atom[] | { [key: string]: Atom };
export type Row = { _uuid: string } & { [column: string]: ColumnValue };

/** A wire datum: an atom, `["uuid", s]`, `["set", [...]]` or `["map", [[k, v], ...]]`. */
export type WireValue = unknown;

export class DatumError extends Error {}

export function decodeAtom(wire: unknown, base: BaseType): Atom {
  switch (base.type) {
    case "uuid":
      if (Array.isArray(wire) && wire.length === 2 && wire[0] === "uuid" && typeof wire[1] === "string") {
        return wire[1];
      }
      break;
    case "string":
      if (typeof wire === "string") return wire;
      break;
    case "integer":
      if (typeof wire === "number" && Number.isInteger(wire)) return wire;
      break;
    case "real":
      if (typeof wire === "number") return wire;
      break;
    case "boolean":
      if (typeof wire === "boolean") return wire;
      break;
  }
  throw new DatumError(`expected a ${base.type} atom, got ${JSON.stringify(wire)}`);
}

/** Atoms of a set datum: a bare atom stands for a one-element set (RFC 7047 §5.1). */
function wireSetElements(wire: unknown): unknown[] {
  if (Array.isArray(wire) && wire[0] === "set") {
    const elements = wire[1];
    if (!Array.isArray(elements)) throw new DatumError("set without element array");
    return elements;
  }
  return [wire];
}

function wireMapPairs(wire: unknown): unknown[] {
  if (!Array.isArray(wire) || wire[0] !== "map" || !Array.isArray(wire[1])) {
    throw new DatumError(`expected a map, got ${JSON.stringify(wire)}`);
  }
  return wire[1];
}

export function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

export function mapKey(atom: Atom): string {
  return String(atom);
}

export function sortedSet(atoms: Iterable<Atom>): Atom[] {
  return [...atoms].sort(compareAtoms);
}

export function sortedMap(entries: Iterable<[string, Atom]>, keyType: AtomicType): { [key: string]: Atom } {
  const list = [...entries];
  list.sort(([a], [b]) =>
    keyType === "integer" || keyType === "real" ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0,
  );
  // fromEntries defines own properties: an assignment would turn a map key "__proto__" into a prototype.
  return Object.fromEntries(list);
}

/** Decodes a full wire datum of a column into the API convention. */
export function decodeValue(wire: WireValue, type: ColumnType): ColumnValue {
  const kind = columnKind(type);
  if (kind === "map") {
    const valueType = type.value as BaseType;
    const entries: [string, Atom][] = [];
    for (const pair of wireMapPairs(wire)) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new DatumError("map pair is not [key, value]");
      entries.push([mapKey(decodeAtom(pair[0], type.key)), decodeAtom(pair[1], valueType)]);
    }
    return sortedMap(entries, type.key.type);
  }
  const atoms = wireSetElements(wire).map((w) => decodeAtom(w, type.key));
  if (kind === "set") return sortedSet(atoms);
  if (atoms.length > 1) throw new DatumError(`${atoms.length} atoms for a column of at most one`);
  const first = atoms[0];
  if (first === undefined) {
    if (kind === "scalar") throw new DatumError("empty value for a required column");
    return null;
  }
  return first;
}

const zeroUuid = "00000000-0000-0000-0000-000000000000";

function defaultAtom(type: AtomicType): Atom {
  switch (type) {
    case "integer":
    case "real":
      return 0;
    case "boolean":
      return false;
    case "string":
      return "";
    case "uuid":
      return zeroUuid;
  }
}

/** The value ovsdb-server omits from `initial`/`insert` rows (RFC 7047 §5.1 defaults). */
export function defaultValue(type: ColumnType): ColumnValue {
  switch (columnKind(type)) {
    case "map":
      return {};
    case "set":
      return type.min === 0 ? [] : Array.from({ length: type.min }, () => defaultAtom(type.key.type));
    case "optional":
      return null;
    case "scalar":
      return defaultAtom(type.key.type);
  }
}

function encodeAtom(atom: Atom, base: BaseType): unknown {
  if (base.type === "uuid") return ["uuid", atom];
  if (base.type === "integer" || base.type === "real") return typeof atom === "string" ? Number(atom) : atom;
  return atom;
}

/** Encodes an API value back to the wire, for `transact` (the inverse of decodeValue). */
export function encodeValue(value: ColumnValue, type: ColumnType): unknown {
  const kind = columnKind(type);
  if (kind === "map") {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new DatumError("expected an object for a map column");
    }
    const valueType = type.value as BaseType;
    const pairs = Object.entries(value).map(([k, v]) => [encodeAtom(k, type.key), encodeAtom(v, valueType)]);
    return ["map", pairs];
  }
  if (value === null) return ["set", []];
  if (Array.isArray(value)) return ["set", value.map((a) => encodeAtom(a, type.key))];
  if (typeof value === "object") throw new DatumError("object for a non-map column");
  return encodeAtom(value, type.key);
}
