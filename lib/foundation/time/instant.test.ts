import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { instantRefusals, isRfc3339, parseInstant, readInstant } from "./instant.ts";

const refusal = (value: string) => {
  const reading = readInstant(value);
  return reading.ok ? null : reading.refusal;
};

describe("RFC 3339 instants", () => {
  test("years 0001 to 0099 are real years (Date.UTC would read them as 1900 to 1999)", () => {
    expect(parseInstant("0050-03-01T00:00:00Z")).toBe("0050-03-01T00:00:00.000Z");
    expect(parseInstant("0001-01-01T00:00:00+00:00")).toBe("0001-01-01T00:00:00.000Z");
  });

  test("calendar dates that do not exist and missing offsets are refused", () => {
    expect(isRfc3339("2026-02-30T00:00:00Z")).toBe(false);
    expect(isRfc3339("0099-02-29T00:00:00Z")).toBe(false);
    expect(isRfc3339("2026-11-03T10:00:00")).toBe(false);
    expect(parseInstant("2028-02-29T23:30:00-01:00")).toBe("2028-03-01T00:30:00.000Z");
    expect(parseInstant("2000-02-29T00:00:00Z")).toBe("2000-02-29T00:00:00.000Z");
    expect(refusal("1900-02-29T00:00:00Z")).toBe(instantRefusals.calendar);
  });

  test("every offset RFC 3339 allows (±23:59) is applied; beyond it is refused", () => {
    expect(parseInstant("2026-01-01T00:00:00+16:00")).toBe("2025-12-31T08:00:00.000Z");
    expect(parseInstant("2026-01-01T00:00:00-23:59")).toBe("2026-01-01T23:59:00.000Z");
    expect(parseInstant("2026-01-01T00:00:00+23:59")).toBe("2025-12-31T00:01:00.000Z");
    expect(refusal("2026-01-01T00:00:00+24:00")).toBe(instantRefusals.offset);
    expect(refusal("2026-01-01T00:00:00+01:60")).toBe(instantRefusals.offset);
    expect(refusal("2026-01-01T00:00:00+0100")).toBe(instantRefusals.shape);
  });

  test("years 0001 to 9999 once the offset is applied; year 0000 as written only when it shifts into 0001", () => {
    expect(refusal("0001-01-01T00:00:00+01:00")).toBe(instantRefusals.range);
    expect(refusal("9999-12-31T23:00:00-01:00")).toBe(instantRefusals.range);
    expect(refusal("0000-01-01T00:00:00Z")).toBe(instantRefusals.range);
    expect(parseInstant("0000-12-31T23:00:00-01:00")).toBe("0001-01-01T00:00:00.000Z");
    expect(parseInstant("9999-12-31T23:59:59.999Z")).toBe("9999-12-31T23:59:59.999Z");
    expect(parseInstant("9999-12-31T23:59:59.999+01:00")).toBe("9999-12-31T22:59:59.999Z");
  });

  test("fractions of 1 to 9 digits are truncated to the millisecond; longer ones are refused", () => {
    expect(parseInstant("2026-01-01T00:00:00.5Z")).toBe("2026-01-01T00:00:00.500Z");
    expect(parseInstant("2026-01-01T00:00:00.123456789Z")).toBe("2026-01-01T00:00:00.123Z");
    expect(parseInstant("2026-01-01T00:00:00.9999+00:00")).toBe("2026-01-01T00:00:00.999Z");
    expect(refusal("2026-01-01T00:00:00.1234567890Z")).toBe(instantRefusals.fraction);
    expect(refusal(`2026-01-01T00:00:00.${"1".repeat(200)}Z`)).toBe(instantRefusals.fraction);
    expect(refusal("2026-01-01T00:00:00.Z")).toBe(instantRefusals.shape);
  });

  test("lower-case t and z and a space separator are read; leap seconds and other shapes are not", () => {
    expect(parseInstant("2026-01-01t10:00:00z")).toBe("2026-01-01T10:00:00.000Z");
    expect(parseInstant("2026-01-01 10:00:00+02:00")).toBe("2026-01-01T08:00:00.000Z");
    expect(refusal("2026-12-31T23:59:60Z")).toBe(instantRefusals.calendar);
    for (const bad of [
      "",
      "2026-01-01",
      "２０２６-01-01T00:00:00Z",
      "+02026-01-01T00:00:00Z",
      "2026-1-01T00:00:00Z",
    ]) {
      expect(refusal(bad)).toBe(instantRefusals.shape);
    }
  });

  test("agrees with Date on every instant it accepts, for any offset", () => {
    const pad = (n: number, w = 2) => String(n).padStart(w, "0");
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0002-01-01T00:00:00Z"),
          max: new Date("9998-12-31T00:00:00Z"),
          noInvalidDate: true,
        }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (date, offset) => {
          const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 23);
          const sign = offset < 0 ? "-" : "+";
          const text = `${local}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
          expect(parseInstant(text)).toBe(date.toISOString());
        },
      ),
    );
  });
});
