import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DurationError, formatDuration, parseDuration } from "./duration.ts";

describe("the duration grammar", () => {
  test("parts in h, m, s, ms, decimals, and a bare 0", () => {
    const cases: [string, number][] = [
      ["0", 0],
      ["250ms", 250],
      ["90s", 90_000],
      ["1.5m", 90_000],
      ["5m", 300_000],
      ["1h30m", 5_400_000],
      ["2h0m5s10ms", 7_205_010],
    ];
    expect(cases.map(([text]) => [text, parseDuration(text)])).toEqual(cases);
  });

  test("anything else is refused with what is taken", () => {
    for (const bad of ["", "5", "-1m", "5x", "m", "1h 2m", " 5m", "5m ", "0s0", "1e3s"]) {
      expect(() => parseDuration(bad)).toThrow(
        `takes a duration such as 0, 500ms, 90s, 5m or 1h30m, got ${JSON.stringify(bad)}`,
      );
    }
  });

  test("formatDuration writes what parseDuration reads back", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});

describe("the caller's bounds", () => {
  test("a range and a step are refused with the range in the message", () => {
    const grid = { minMs: 30_000, maxMs: 86_400_000, stepMs: 1000 };
    expect(parseDuration("5m", grid)).toBe(300_000);
    expect(() => parseDuration("10s", grid)).toThrow(
      'takes a duration from 30s to 24h in whole 1s, got "10s"',
    );
    expect(() => parseDuration("25h", grid)).toThrow(
      'takes a duration from 30s to 24h in whole 1s, got "25h"',
    );
    expect(() => parseDuration("90500ms", grid)).toThrow(DurationError);
    expect(() => parseDuration("0", { minMs: 1 })).toThrow('takes a duration of at least 1ms, got "0"');
  });
});
