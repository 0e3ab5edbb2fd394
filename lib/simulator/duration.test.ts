import { expect, test } from "bun:test";
import { parseDuration } from "./duration.ts";

test("Go-style durations", () => {
  expect(parseDuration("0")).toBe(0);
  expect(parseDuration("5m")).toBe(300_000);
  expect(parseDuration("1h30m")).toBe(5_400_000);
  expect(parseDuration("90s")).toBe(90_000);
  expect(parseDuration("250ms")).toBe(250);
  for (const bad of ["", "5", "-1m", "5x", "m", "1h 2m"]) expect(parseDuration(bad)).toBeNull();
});
