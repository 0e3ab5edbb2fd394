import { expect, test } from "bun:test";
import fc from "fast-check";
import { checkJsonSchema } from "./json-schema-check.ts";
import type { JsonValue } from "./json-value.ts";

const instance: JsonValue = {
  type: "object",
  required: ["vcpus", "ram_gb", "disk_gb", "flavor"],
  properties: {
    vcpus: { type: "integer", minimum: 0 },
    ram_gb: { type: "number", minimum: 0 },
    disk_gb: { type: "number", minimum: 0 },
    flavor: { type: "string", minLength: 1 },
  },
};

test("a conforming size with extra members passes", () => {
  expect(
    checkJsonSchema(instance, { vcpus: 2, ram_gb: 4.5, disk_gb: 40, flavor: "m1", gpu: true }, "s"),
  ).toEqual([]);
});

test("every violation is reported with its location", () => {
  expect(checkJsonSchema(instance, { vcpus: 1.5, ram_gb: -1, flavor: "" }, "s")).toEqual([
    { loc: "s.disk_gb", msg: "is required" },
    { loc: "s.vcpus", msg: "must be integer" },
    { loc: "s.ram_gb", msg: "must be at least 0" },
    { loc: "s.flavor", msg: "must be at least 1 characters" },
  ]);
  expect(checkJsonSchema({ type: "integer", enum: [4, 6] }, 5, "v")).toEqual([
    { loc: "v", msg: "must be one of 4, 6" },
  ]);
  expect(checkJsonSchema({ type: "object", additionalProperties: false }, { a: 1 }, "o")).toEqual([
    { loc: "o.a", msg: "is not allowed" },
  ]);
  expect(checkJsonSchema({ type: ["integer", "array"], items: { type: "string" } }, ["a", 1], "l")).toEqual([
    { loc: "l.1", msg: "must be string" },
  ]);
});

test("numbers within bounds pass and outside fail (property)", () => {
  fc.assert(
    fc.property(fc.integer({ min: -1000, max: 1000 }), (n) => {
      const errors = checkJsonSchema({ type: "integer", minimum: 0, maximum: 100 }, n, "n");
      expect(errors.length === 0).toBe(n >= 0 && n <= 100);
    }),
  );
});
