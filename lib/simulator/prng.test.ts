import { expect, test } from "bun:test";
import { Prng } from "./prng.ts";

test("one seed and stream give one sequence; streams are independent", () => {
  const a = new Prng(1, "x");
  const b = new Prng(1, "x");
  const c = new Prng(1, "y");
  const seq = (p: Prng) => Array.from({ length: 5 }, () => p.nextUint32());
  const first = seq(a);
  expect(seq(b)).toEqual(first);
  expect(seq(c)).not.toEqual(first);
});

test("uniform enough for shares, ranges inclusive, UUIDs of version 4", () => {
  const p = new Prng(42, "t");
  let hits = 0;
  for (let i = 0; i < 20_000; i++) if (p.chance(1 / 20)) hits++;
  expect(hits / 20_000).toBeGreaterThan(0.045);
  expect(hits / 20_000).toBeLessThan(0.055);
  const seen = new Set(Array.from({ length: 1000 }, () => p.int(1, 3)));
  expect([...seen].sort()).toEqual([1, 2, 3]);
  expect(p.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
