import { expect, test } from "bun:test";
import { parseInstant } from "../../foundation/time/instant.ts";
import { osloInstant, osloTimestamp } from "./timestamp.ts";

test("oslo's offset-less UTC rendering reads as a canonical instant, microseconds truncated", () => {
  expect(osloInstant("2026-10-03 12:00:05.123456")).toBe("2026-10-03T12:00:05.123Z");
  expect(osloInstant("2026-10-03 12:00:05")).toBe("2026-10-03T12:00:05.000Z");
  expect(osloInstant("2026-10-03T14:00:05+02:00")).toBe("2026-10-03T12:00:05.000Z");
  expect(osloInstant("2026-02-30 00:00:00")).toBeNull();
  expect(osloInstant("yesterday")).toBeNull();
});

test("the simulator writes what the collector reads", () => {
  const ms = Date.parse("2026-10-31T23:59:59.999Z");
  expect(osloTimestamp(ms, 7)).toBe("2026-10-31 23:59:59.999007");
  expect(osloInstant(osloTimestamp(ms, 7))).toBe("2026-10-31T23:59:59.999Z");
});

test("the oslo form read field by field names what parseInstant names", () => {
  const dates = [
    "0000-01-01",
    "0001-01-01",
    "0099-12-31",
    "1900-02-29",
    "2000-02-29",
    "2024-02-29",
    "2026-02-29",
    "2026-02-28",
    "2026-04-31",
    "2026-04-30",
    "2026-12-31",
    "2026-13-01",
    "2026-00-10",
    "2026-01-00",
    "9999-12-31",
  ];
  const times = ["00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60", "12:00:05"];
  const fractions = ["", ".1", ".12", ".123", ".1234", ".123456", ".999999"];
  for (const date of dates)
    for (const time of times)
      for (const fraction of fractions)
        for (const separator of [" ", "T"]) {
          const value = `${date}${separator}${time}${fraction}`;
          expect([value, osloInstant(value)]).toEqual([value, parseInstant(`${date}T${time}${fraction}Z`)]);
        }
});
