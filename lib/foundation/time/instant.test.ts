import { describe, expect, test } from "bun:test";
import { isRfc3339, parseInstant } from "./instant.ts";

describe("RFC 3339 instants", () => {
  test("years 0001 to 0099 are real years (Date.UTC would read them as 1900 to 1999); 0000 is refused", () => {
    expect(parseInstant("0050-03-01T00:00:00Z")).toBe("0050-03-01T00:00:00.000Z");
    expect(parseInstant("0001-01-01T00:00:00+00:00")).toBe("0001-01-01T00:00:00.000Z");
    expect(isRfc3339("0000-01-01T00:00:00Z")).toBe(false);
  });

  test("calendar dates that do not exist and missing offsets are refused", () => {
    expect(isRfc3339("2026-02-30T00:00:00Z")).toBe(false);
    expect(isRfc3339("0099-02-29T00:00:00Z")).toBe(false);
    expect(isRfc3339("2026-11-03T10:00:00")).toBe(false);
    expect(parseInstant("2028-02-29T23:30:00-01:00")).toBe("2028-03-01T00:30:00.000Z");
  });
});
