import { expect, test } from "bun:test";
import { isJsonObject } from "./is-json-object.ts";

test("objects only", () => {
  expect([{}, { a: 1 }].map(isJsonObject)).toEqual([true, true]);
  expect([null, [], "x", 1, undefined].map(isJsonObject)).toEqual([false, false, false, false, false]);
});
