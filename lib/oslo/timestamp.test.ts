import { expect, test } from "bun:test";
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
