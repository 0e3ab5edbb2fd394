import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { threeDigitText, utcDateTime, utcMillis } from "./utc-text.ts";

const first = Date.parse("0000-01-01T00:00:00.000Z");
const last = Date.parse("9999-12-31T23:59:59.999Z");

describe("UTC text", () => {
  test("is toISOString's text for every instant of years 0000 to 9999, fractions of a millisecond dropped", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: first, max: last - 1 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (ms, f) => {
          expect(`${utcDateTime(ms + f, "T")}.${utcMillis(ms + f)}Z`).toBe(new Date(ms + f).toISOString());
          const iso = new Date(ms).toISOString();
          expect(utcDateTime(ms, " ")).toBe(`${iso.slice(0, 10)} ${iso.slice(11, 19)}`);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  test("at the edges of days, years and the range", () => {
    for (const iso of [
      "1970-01-01T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "2026-10-31T23:59:59.999Z",
      "2028-02-29T12:00:00.001Z",
      "0000-01-01T00:00:00.000Z",
      "9999-12-31T23:59:59.999Z",
    ]) {
      const ms = Date.parse(iso);
      expect(`${utcDateTime(ms, "T")}.${utcMillis(ms)}Z`).toBe(iso);
    }
  });

  test("outside years 0000 to 9999 and for an invalid instant it throws, as toISOString does for the latter", () => {
    expect(() => utcDateTime(first - 1, " ")).toThrow(RangeError);
    expect(() => utcDateTime(last + 1, " ")).toThrow(RangeError);
    expect(() => utcMillis(Number.NaN)).toThrow(RangeError);
  });

  test("three digits as padStart writes them", () => {
    expect([0, 7, 42, 999, 1000, 12345].map(threeDigitText)).toEqual([
      "000",
      "007",
      "042",
      "999",
      "1000",
      "12345",
    ]);
  });
});
