import { expect, test } from "bun:test";
import fc from "fast-check";
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

test("pickExcept draws as pick from the list without the excepted item", () => {
  fc.assert(
    fc.property(fc.integer(), fc.integer({ min: 2, max: 50 }), fc.nat(), (seed, length, at) => {
      const items = Array.from({ length }, (_, i) => i);
      const except = at % length;
      const picked = new Prng(seed, "p").pickExcept(items, except);
      expect(picked).toBe(new Prng(seed, "p").pick(items.filter((i) => i !== except)));
    }),
  );
});

test("hex and UUIDs are the digits of the draws, most significant first", () => {
  const draws = new Prng(5, "h");
  const digits = Array.from({ length: 4 }, () => draws.nextUint32().toString(16).padStart(8, "0")).join("");
  expect(new Prng(5, "h").hex(32)).toBe(digits);
  expect(new Prng(5, "h").hex(13)).toBe(digits.slice(0, 13));
  const v = ((Number.parseInt(digits[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  expect(new Prng(5, "h").uuid()).toBe(
    `${digits.slice(0, 8)}-${digits.slice(8, 12)}-4${digits.slice(13, 16)}-${v}${digits.slice(17, 20)}-${digits.slice(20)}`,
  );
});
