import { expect, test } from "bun:test";
import { replaceSizeNames, sizeNameTable } from "./size-names.ts";

const table = sizeNameTable([
  { member: "type", value: "3f2a", name: "ssd" },
  { member: "type", value: "9b1c", name: "hdd" },
]);

test("a string member matching a row is replaced and the arrived value kept in provider", () => {
  const out = replaceSizeNames(
    {
      state: "available",
      size: { size_gb: 10, type: "3f2a" },
      provider: { raw: 1, size_as_reported: { x: 1 } },
    },
    table,
  );
  expect(out).toEqual({
    state: "available",
    size: { size_gb: 10, type: "ssd" },
    provider: { raw: 1, size_as_reported: { type: "3f2a" } },
  });
});

test("absent, non-string, unmatched members and pairs without rows stay as sent", () => {
  const unmatched = { state: "a", size: { size_gb: 10, type: "zzzz" } };
  expect(replaceSizeNames(unmatched, table)).toBe(unmatched);
  const nonString = { state: "a", size: { type: 5 } };
  expect(replaceSizeNames(nonString, table)).toBe(nonString);
  const absent = { state: "a", size: { size_gb: 1 } };
  expect(replaceSizeNames(absent, table)).toBe(absent);
  const noRows = { state: "a", size: { type: "3f2a" }, provider: { size_as_reported: { own: true } } };
  expect(replaceSizeNames(noRows, undefined)).toBe(noRows);
  expect(replaceSizeNames({ state: "a" }, table)).toEqual({ state: "a" });
});
