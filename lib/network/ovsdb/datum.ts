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
import { compare } from "../../foundation/collections/compare.ts";
import { type Atom, type AtomicType, type BaseType, type ColumnType, columnKind } from "./schema.ts";

export type { Atom };
export type ColumnValue = Atom | null | Atom[] | { [key: string]: Atom };
export type Row = { _uuid: string } & { [column: string]: ColumnValue };

/** A wire datum: an atom, `["uuid", s]`, `["set", [...]]` or `["map", [[k, v], ...]]`. */
type WireValue = unknown;

export class DatumError extends Error {}

type AtomDecoder = (wire: unknown) => Atom;

function atomError(type: AtomicType, wire: unknown): DatumError {
  return new DatumError(`expected a ${type} atom, got ${JSON.stringify(wire)}`);
}

// One small function per atomic type rather than a switch per atom: a sync decodes a million atoms,
// mostly before the JIT has warmed up, and monomorphic code is what the interpreter runs fastest.
const atomDecoders: Record<AtomicType, AtomDecoder> = {
  uuid: (wire) => {
    if (Array.isArray(wire) && wire.length === 2 && wire[0] === "uuid" && typeof wire[1] === "string")
      return wire[1];
    throw atomError("uuid", wire);
  },
  string: (wire) => {
    if (typeof wire === "string") return wire;
    throw atomError("string", wire);
  },
  integer: (wire) => {
    if (typeof wire === "number" && Number.isInteger(wire)) return wire;
    throw atomError("integer", wire);
  },
  real: (wire) => {
    if (typeof wire === "number") return wire;
    throw atomError("real", wire);
  },
  boolean: (wire) => {
    if (typeof wire === "boolean") return wire;
    throw atomError("boolean", wire);
  },
};

export function decodeAtom(wire: unknown, base: BaseType): Atom {
  return atomDecoders[base.type](wire);
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

function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return compare(sa, sb);
}

function mapKey(atom: Atom): string {
  return String(atom);
}

function isSorted<T>(list: readonly T[], compare: (a: T, b: T) => number): boolean {
  for (let i = 1; i < list.length; i++) if (compare(list[i - 1] as T, list[i] as T) > 0) return false;
  return true;
}

/** ovsdb-server sends sets and maps in its own (sorted) order: the sort is then only a check. */
export function sortedSet(atoms: Iterable<Atom>): Atom[] {
  const list = [...atoms];
  return isSorted(list, compareAtoms) ? list : list.sort(compareAtoms);
}

const numericKeys = ([a]: [string, Atom], [b]: [string, Atom]) => Number(a) - Number(b);
const textKeys = ([a]: [string, Atom], [b]: [string, Atom]) => compare(a, b);

export function sortedMap(entries: Iterable<[string, Atom]>, keyType: AtomicType): { [key: string]: Atom } {
  return mapOf([...entries], keyType);
}

/** sortedMap of a list the caller hands over (sorted in place). */
function mapOf(list: [string, Atom][], keyType: AtomicType): { [key: string]: Atom } {
  const compare = keyType === "integer" || keyType === "real" ? numericKeys : textKeys;
  if (!isSorted(list, compare)) list.sort(compare);
  // fromEntries defines own properties: an assignment would turn a map key "__proto__" into a prototype.
  return Object.fromEntries(list);
}

export type ValueDecoder = (wire: WireValue) => ColumnValue;

function compileDecoder(type: ColumnType): ValueDecoder {
  const kind = columnKind(type);
  const key = atomDecoders[type.key.type];
  if (kind === "map") {
    const value = atomDecoders[(type.value as BaseType).type];
    const keyType = type.key.type;
    return (wire) => {
      const pairs = wireMapPairs(wire);
      // Most maps of a full read are empty: a select sends every column, defaults included.
      if (pairs.length === 0) return {};
      const entries: [string, Atom][] = new Array(pairs.length);
      for (let i = 0; i < pairs.length; i++) {
        const pair = pairs[i];
        if (!Array.isArray(pair) || pair.length !== 2) throw new DatumError("map pair is not [key, value]");
        entries[i] = [mapKey(key(pair[0])), value(pair[1])];
      }
      return mapOf(entries, keyType);
    };
  }
  if (kind === "set")
    return (wire) => {
      const elements = wireSetElements(wire);
      if (elements.length === 0) return [];
      const atoms: Atom[] = new Array(elements.length);
      for (let i = 0; i < elements.length; i++) atoms[i] = key(elements[i]);
      return isSorted(atoms, compareAtoms) ? atoms : atoms.sort(compareAtoms);
    };
  const optional = kind === "optional";
  return (wire) => {
    // The common case first: a bare atom.
    if (!Array.isArray(wire) || wire[0] !== "set") return key(wire);
    const elements = wireSetElements(wire);
    if (elements.length > 1) throw new DatumError(`${elements.length} atoms for a column of at most one`);
    if (elements.length === 0) {
      if (!optional) throw new DatumError("empty value for a required column");
      return null;
    }
    return key(elements[0]);
  };
}

const decoders = new WeakMap<ColumnType, ValueDecoder>();

/** The decoder of a column's wire datums, compiled once per column type. */
export function valueDecoder(type: ColumnType): ValueDecoder {
  let decoder = decoders.get(type);
  if (decoder === undefined) {
    decoder = compileDecoder(type);
    decoders.set(type, decoder);
  }
  return decoder;
}

/** Decodes a full wire datum of a column into the API convention. */
export function decodeValue(wire: WireValue, type: ColumnType): ColumnValue {
  return valueDecoder(type)(wire);
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
