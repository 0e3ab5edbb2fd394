import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type AExpr, annotate, combine, evaluate, negate, parseExpr } from "./expr.ts";
import { emptyFlow, type Flow, mfField } from "./flow.ts";
import { type Cube, covers, matchSpace, overlaps, type Space, SpaceTooLarge } from "./match-space.ts";
import { symtab } from "./symbols.ts";

const ports = new Map([
  ["a", 1],
  ["b", 2],
  ["c", 3],
]);
const ctx = {
  symtab,
  addressSets: new Map([["clients", ["10.1.0.0/24", "10.0.0.13"]]]),
  portGroups: new Map([["web", ["a", "b"]]]),
};
const space = (text: string) => matchSpace(annotate(parseExpr(text, ctx), symtab));

describe("ACL-like matches", () => {
  test("a narrower match is covered, a wider one is not", () => {
    const wide = space("ip4.src == 10.1.0.64/26");
    const narrow = space("ip4.src == 10.1.0.70 && udp");
    expect(covers(wide, narrow)).toBe(true);
    expect(covers(narrow, wide)).toBe(false);
    expect(overlaps(wide, narrow)).toBe(true);
  });

  test("overlap without cover, and disjoint families", () => {
    const net = space("ip4.dst == 192.0.2.0/24");
    const host = space("ip4.dst == 192.0.2.10 && tcp");
    expect(overlaps(net, host)).toBe(true);
    expect(covers(host, net)).toBe(false);
    expect(overlaps(space("ip4"), space("ip6"))).toBe(false);
    expect(overlaps(space("tcp.dst == 80"), space("udp.dst == 80"))).toBe(false);
  });

  test("ranges, port groups, address sets and negations", () => {
    expect(covers(space("tcp && tcp.dst >= 1 && tcp.dst <= 1024"), space("tcp.dst == {22, 80, 443}"))).toBe(
      true,
    );
    expect(covers(space("tcp.dst < 443"), space("tcp.dst == {22, 443}"))).toBe(false);
    expect(covers(space("inport == @web && ip4"), space('inport == "a" && ip4 && tcp'))).toBe(true);
    expect(covers(space("inport == @web && ip4"), space('inport == "c" && ip4 && tcp'))).toBe(false);
    expect(covers(space("ip4.src == $clients"), space("ip4.src == 10.1.0.5 && udp"))).toBe(true);
    expect(covers(space("ip4 && ip4.src != 10.0.0.0/8"), space("ip4.src == 11.0.0.1"))).toBe(true);
    expect(covers(space("ip4 && ip4.src != 10.0.0.0/8"), space("ip4.src == 10.0.0.1"))).toBe(false);
    expect(covers(space("1"), space("ip6 && udp"))).toBe(true);
    expect(overlaps(space("0"), space("1"))).toBe(false);
  });

  test("past the budget the answer is unknown, not a guess", () => {
    const many = `ip4.src == {${Array.from({ length: 100 }, (_, i) => `10.0.${i}.1`).join(", ")}}`;
    const other = `ip4.dst == {${Array.from({ length: 100 }, (_, i) => `10.9.${i}.1`).join(", ")}}`;
    expect(() => matchSpace(annotate(parseExpr(`${many} && ${other}`, ctx), symtab), 1000)).toThrow(
      SpaceTooLarge,
    );
  });
});

// Two 4-bit register slices and a port name, small enough to try every packet.
const reg0 = mfField("reg0");
const reg1 = mfField("reg1");
const names = ["", "a", "b", "c"];
const points: Flow[] = [];
for (let x = 0n; x < 16n; x++)
  for (let y = 0n; y < 16n; y++)
    for (let p = 0n; p < 4n; p++) {
      const flow = emptyFlow();
      reg0.set(flow, x);
      reg1.set(flow, y);
      flow.regs[14] = p;
      points.push(flow);
    }

function inCube(cube: Cube, flow: Flow): boolean {
  for (const [field, { value, mask }] of cube.bits)
    if ((mfField(field).get(flow) & mask) !== (value & mask)) return false;
  for (const [, set] of cube.names)
    if (set.names.has(names[Number(flow.regs[14])] ?? "") !== set.in) return false;
  return true;
}
const inSpace = (s: Space, flow: Flow) => s.some((c) => inCube(c, flow));
const holds = (e: AExpr, flow: Flow) => evaluate(e, flow, (n) => ports.get(n));

const atom = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("reg0", "reg1"),
      fc.constantFrom("==", "!=", "<", "<=", ">", ">="),
      fc.integer({ min: 0, max: 15 }),
    )
    .map(([r, op, v]) => `${r}[0..3] ${op} ${v}`),
  fc
    .tuple(fc.constantFrom("reg0", "reg1"), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 15 }))
    .map(([r, v, m]) => `${r}[0..3] == ${v}/${m}`),
  fc
    .subarray(["a", "b", "c"], { minLength: 1 })
    .map((s) => `inport == {${s.map((n) => `"${n}"`).join(", ")}}`),
);
const expr: fc.Arbitrary<AExpr> = fc.letrec<{ e: AExpr }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom.map((t) => annotate(parseExpr(t, ctx), symtab)),
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => combine("and", a, b) as AExpr),
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => combine("or", a, b) as AExpr),
    tie("e").map((a) => negate(a)),
  ),
})).e;

describe("exact against every packet", () => {
  test("a space holds exactly the packets its expression accepts", () => {
    fc.assert(
      fc.property(expr, (e) => {
        const s = matchSpace(e);
        for (const flow of points) if (inSpace(s, flow) !== holds(e, flow)) return false;
        return true;
      }),
      { numRuns: 300 },
    );
  });

  test("covers and overlaps agree with trying every packet", () => {
    fc.assert(
      fc.property(expr, expr, (a, b) => {
        const [sa, sb] = [matchSpace(a), matchSpace(b)];
        const both = points.some((f) => holds(a, f) && holds(b, f));
        const aHasB = points.every((f) => !holds(b, f) || holds(a, f));
        return overlaps(sa, sb) === both && covers(sa, sb) === aHasB;
      }),
      { numRuns: 300 },
    );
  });
});
