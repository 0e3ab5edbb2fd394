import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { testSchema } from "../../../harness/netview/ovsdb-test-schema.ts";
import { decodeSelectedRows, selectOperations } from "./selected-rows.ts";
import { decodeInitial, UpdateError } from "./update2.ts";

// Columns listed out of alphabetical order, as ovsdb-server lists them (its hash order).
const schema = testSchema(["name", "tags", "ids", "ref"], { U: { columns: { n: { type: "integer" } } } });
const u1 = "11111111-1111-1111-1111-111111111111";
const u2 = "22222222-2222-2222-2222-222222222222";

describe("selectOperations", () => {
  test("selects every row and column of each table, columns in the server's order, then _uuid", () => {
    expect(selectOperations(schema, ["T", "U"])).toEqual([
      { op: "select", table: "T", where: [], columns: ["name", "tags", "ids", "ref", "_uuid"] },
      { op: "select", table: "U", where: [], columns: ["n", "_uuid"] },
    ]);
  });
});

describe("decodeSelectedRows", () => {
  test("rows decode as the same rows a monitor's initial update gives", () => {
    const wire = { name: "a", tags: ["set", ["y", "x"]], ids: ["map", [["k", "v"]]], ref: ["uuid", u2] };
    const rows = decodeSelectedRows(
      schema,
      ["T", "U"],
      [{ rows: [{ _uuid: ["uuid", u1], ...wire }] }, { rows: [{ _uuid: ["uuid", u2], n: 3 }] }],
    );
    const initial = decodeInitial(schema, {
      T: { [u1]: { initial: wire } },
      U: { [u2]: { initial: { n: 3 } } },
    });
    expect(rows).toEqual(initial);
    expect(rows.get("T")?.get(u1)).toEqual({
      _uuid: u1,
      name: "a",
      tags: ["x", "y"],
      ids: { k: "v" },
      ref: u2,
    });
  });

  test("an empty table is an empty map", () => {
    expect(decodeSelectedRows(schema, ["U"], [{ rows: [] }]).get("U")?.size).toBe(0);
  });

  test.each([
    ["not an array", { rows: [] }, /does not answer every table/],
    ["too short", [], /does not answer every table/],
    ["an operation's error", [{ error: "constraint violation" }], /select U: no rows: constraint violation/],
    ["a row without _uuid", [{ rows: [{ n: 1 }] }], /a row without _uuid/],
    ["a value of the wrong type", [{ rows: [{ _uuid: ["uuid", u1], n: "x" }] }], /^U 1111.*integer/],
  ])("%s is an UpdateError", (_, result, message) => {
    expect(() => decodeSelectedRows(schema, ["U"], result)).toThrow(UpdateError);
    expect(() => decodeSelectedRows(schema, ["U"], result)).toThrow(message);
  });

  test("property: never throws anything but UpdateError", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (result) => {
        try {
          decodeSelectedRows(schema, ["T", "U"], result);
        } catch (error) {
          expect(error).toBeInstanceOf(UpdateError);
        }
      }),
    );
  });
});
