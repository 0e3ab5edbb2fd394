import { describe, expect, test } from "bun:test";
import { parseSeeds } from "./all.ts";
import { parseRunFlags } from "./run-flags.ts";

describe("parseSeeds", () => {
  test("lists and ranges, in order, each seed once", () => {
    expect(parseSeeds("1-5")).toEqual([1, 2, 3, 4, 5]);
    expect(parseSeeds("7,1-3,2")).toEqual([7, 1, 2, 3]);
  });
  test("refusals complete --seeds", () => {
    expect(() => parseSeeds("5-1")).toThrow("has a range that runs backwards: 5-1");
    expect(() => parseSeeds("x")).toThrow('takes an integer of at least 0, got "x"');
  });
});

describe("parseRunFlags", () => {
  const now = new Date("2026-11-23T00:00:00Z");
  test("the defaults: seed 1, October 2026, 10 tenants, no out", () => {
    expect(parseRunFlags({ seed: "1", period: "2026-10", tenants: "10", keep: false }, now)).toEqual({
      seed: 1,
      period: { name: "2026-10", from: "2026-10-01T00:00:00.000Z", to: "2026-11-01T00:00:00.000Z" },
      tenants: 10,
      keep: false,
      out: null,
      via: undefined,
      dropEvent: undefined,
    });
  });
  test("--out is made absolute", () => {
    const choice = parseRunFlags({ seed: "1", period: "2026-10", tenants: "1", keep: true, out: "rel" }, now);
    expect(choice.out).toBe(`${process.cwd()}/rel`);
  });
});
