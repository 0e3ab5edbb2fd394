/**
 * The set of packets an annotated match expression accepts, as a union of cubes, so that two matches
 * can be compared exactly: does one accept every packet the other does (`covers`), do they share any
 * (`overlaps`)? A cube fixes some bits of each integer field (value and mask, as OpenFlow matches do)
 * and confines each string field (inport, outport) to a set of names or away from one. `!=` and the
 * ordered comparisons become unions of cubes, `&&` their pairwise intersections. Exact within the
 * expression language; the work is bounded by a cube budget, past which the answer is "unknown"
 * (SpaceTooLarge) rather than a guess. Used by the ACL audit (decision 328). Pure.
 */
import type { AExpr, Relop } from "./expr.ts";

/** A string field's constraint: one of `names` (`in`), or none of them (`out`). */
interface NameSet {
  in: boolean;
  names: ReadonlySet<string>;
}

export interface Cube {
  /** Fixed bits per integer field (by OVS field name): bits of `mask` equal those of `value`. */
  readonly bits: ReadonlyMap<string, { value: bigint; mask: bigint }>;
  readonly names: ReadonlyMap<string, NameSet>;
}

/** A union of cubes; the empty list accepts nothing. */
export type Space = Cube[];

export class SpaceTooLarge extends Error {}

const defaultCubeBudget = 4096;

const everything: Cube = { bits: new Map(), names: new Map() };

function intersectNames(a: NameSet, b: NameSet): NameSet | undefined {
  if (a.in && b.in) {
    const names = new Set([...a.names].filter((n) => b.names.has(n)));
    return names.size === 0 ? undefined : { in: true, names };
  }
  if (a.in || b.in) {
    const [inside, outside] = a.in ? [a, b] : [b, a];
    const names = new Set([...inside.names].filter((n) => !outside.names.has(n)));
    return names.size === 0 ? undefined : { in: true, names };
  }
  return { in: false, names: new Set([...a.names, ...b.names]) };
}

function intersectCubes(a: Cube, b: Cube): Cube | undefined {
  const bits = new Map(a.bits);
  for (const [field, y] of b.bits) {
    const x = bits.get(field);
    if (x === undefined) {
      bits.set(field, y);
      continue;
    }
    if (((x.value ^ y.value) & x.mask & y.mask) !== 0n) return undefined;
    bits.set(field, { value: (x.value & x.mask) | (y.value & y.mask), mask: x.mask | y.mask });
  }
  const names = new Map(a.names);
  for (const [field, y] of b.names) {
    const x = names.get(field);
    const merged = x === undefined ? y : intersectNames(x, y);
    if (merged === undefined) return undefined;
    names.set(field, merged);
  }
  return { bits, names };
}

/** c minus d, as disjoint cubes: one piece per bit of d that c leaves free, one per name constraint. */
function subtractCube(c: Cube, d: Cube): Cube[] {
  if (intersectCubes(c, d) === undefined) return [c];
  const pieces: Cube[] = [];
  let bits = new Map(c.bits);
  for (const [field, y] of d.bits) {
    const x = bits.get(field) ?? { value: 0n, mask: 0n };
    let value = x.value & x.mask;
    let mask = x.mask;
    let free = y.mask & ~x.mask;
    while (free !== 0n) {
      const bit = free & -free;
      free ^= bit;
      const piece = new Map(bits);
      piece.set(field, { value: value | (~y.value & bit), mask: mask | bit });
      pieces.push({ bits: piece, names: c.names });
      value |= y.value & bit;
      mask |= bit;
      bits = new Map(bits);
      bits.set(field, { value, mask });
    }
  }
  let names = new Map(c.names);
  for (const [field, y] of d.names) {
    const x = names.get(field) ?? { in: false, names: new Set<string>() };
    const outside = intersectNames(x, { in: !y.in, names: y.names });
    if (outside !== undefined) {
      const piece = new Map(names);
      piece.set(field, outside);
      pieces.push({ bits, names: piece });
    }
    const inside = intersectNames(x, y);
    if (inside === undefined) break;
    names = new Map(names);
    names.set(field, inside);
  }
  return pieces;
}

const ones = (n: number) => (1n << BigInt(n)) - 1n;

/** The cubes of `x <relop> bound` over a contiguous run of `width` bits starting at `shift`. */
function rangeCubes(field: string, relop: Relop, bound: bigint, shift: bigint, width: number): Space {
  const max = ones(width);
  let [lo, hi] = [0n, max];
  if (relop === "<") hi = bound - 1n;
  if (relop === "<=") hi = bound;
  if (relop === ">") lo = bound + 1n;
  if (relop === ">=") lo = bound;
  if (lo > hi) return [];
  // The fewest aligned blocks covering [lo, hi], as a router's prefix list.
  const out: Space = [];
  while (lo <= hi) {
    let size = 1n;
    while ((lo & (size * 2n - 1n)) === 0n && lo + size * 2n - 1n <= hi && size * 2n <= max + 1n) size *= 2n;
    const blockMask = max & ~(size - 1n);
    out.push({
      bits: new Map([[field, { value: lo << shift, mask: blockMask << shift }]]),
      names: new Map(),
    });
    lo += size;
  }
  return out;
}

function lowestBit(mask: bigint): bigint {
  let n = 0n;
  while (mask !== 0n && ((mask >> n) & 1n) === 0n) n++;
  return n;
}

function comparison(e: AExpr & { t: "cmp" }): Space {
  const field = e.field.name;
  const value = e.value & e.mask;
  if (e.relop === "==") return [{ bits: new Map([[field, { value, mask: e.mask }]]), names: new Map() }];
  if (e.relop === "!=") {
    const out: Space = [];
    for (let rest = e.mask; rest !== 0n; ) {
      const bit = rest & -rest;
      rest ^= bit;
      out.push({ bits: new Map([[field, { value: ~value & bit, mask: bit }]]), names: new Map() });
    }
    return out;
  }
  const shift = lowestBit(e.mask);
  const width = (e.mask >> shift).toString(2).length;
  return rangeCubes(field, e.relop, value >> shift, shift, width);
}

function product(a: Space, b: Space, budget: number): Space {
  const out: Space = [];
  for (const x of a) {
    for (const y of b) {
      const z = intersectCubes(x, y);
      if (z === undefined) continue;
      out.push(z);
      if (out.length > budget) throw new SpaceTooLarge(`more than ${budget} cubes`);
    }
  }
  return out;
}

/** The packets `e` accepts. Throws SpaceTooLarge past `budget` cubes, and for is_chassis_resident. */
export function matchSpace(e: AExpr, budget = defaultCubeBudget): Space {
  switch (e.t) {
    case "bool":
      return e.b ? [everything] : [];
    case "cond":
      throw new SpaceTooLarge("is_chassis_resident depends on where the packet is");
    case "cmp":
      return comparison(e);
    case "scmp":
      if (e.relop !== "==" && e.relop !== "!=") throw new SpaceTooLarge(`ordered test of ${e.field.name}`);
      return [
        {
          bits: new Map(),
          names: new Map([[e.field.name, { in: e.relop === "==", names: new Set([e.s]) }]]),
        },
      ];
    case "or": {
      // `inport == @group` is one comparison per member: one cube with the set of names instead.
      const first = e.subs[0];
      if (
        first?.t === "scmp" &&
        e.subs.every((s) => s.t === "scmp" && s.relop === "==" && s.field.name === first.field.name)
      ) {
        const names = new Set(e.subs.map((s) => (s as AExpr & { t: "scmp" }).s));
        return [{ bits: new Map(), names: new Map([[first.field.name, { in: true, names }]]) }];
      }
      const out: Space = [];
      for (const s of e.subs) {
        out.push(...matchSpace(s, budget));
        if (out.length > budget) throw new SpaceTooLarge(`more than ${budget} cubes`);
      }
      return out;
    }
    case "and": {
      let out: Space = [everything];
      for (const s of e.subs) {
        out = product(out, matchSpace(s, budget), budget);
        if (out.length === 0) return out;
      }
      return out;
    }
  }
}

/** Whether some packet is in both. */
export function overlaps(a: Space, b: Space): boolean {
  return a.some((x) => b.some((y) => intersectCubes(x, y) !== undefined));
}

/** Whether every packet of `inner` is also in `outer`. Throws SpaceTooLarge past `budget` cubes. */
export function covers(outer: Space, inner: Space, budget = defaultCubeBudget): boolean {
  let rest = inner;
  for (const d of outer) {
    const next: Space = [];
    for (const c of rest) {
      next.push(...subtractCube(c, d));
      if (next.length > budget) throw new SpaceTooLarge(`more than ${budget} cubes`);
    }
    rest = next;
    if (rest.length === 0) return true;
  }
  return rest.length === 0;
}
