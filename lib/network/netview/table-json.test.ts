import { expect, test } from "bun:test";
import { NotFoundError, UnavailableError } from "../../foundation/errors/svc-error.ts";
import { DatabaseCache } from "../ovsdb/database-cache.ts";
import { parseSchema } from "../ovsdb/schema.ts";
import { tableListJson, tableRow } from "./table-json.ts";

const schema = parseSchema({
  name: "OVN_Northbound",
  version: "6.1.0",
  tables: { Logical_Switch: { columns: { name: { type: "string" } } } },
});
const u = "11111111-1111-1111-1111-111111111111";

test("never synced: 503; a table the server lacks: 404 naming the schema; unknown uuid: not found", () => {
  const cache = new DatabaseCache("OVN_Northbound");
  expect(() => tableListJson(cache, "northbound", "Logical_Switch")).toThrow(UnavailableError);
  cache.replaceAll(schema, { Logical_Switch: { [u]: { initial: { name: "a" } } } });
  expect(() => tableListJson(cache, "northbound", "Mirror")).toThrow(
    new NotFoundError("table Mirror is not in this northbound schema (OVN_Northbound 6.1.0)"),
  );
  expect(() => tableRow(cache, "northbound", "Logical_Switch", "x")).toThrow(new NotFoundError("not found"));
  expect(tableRow(cache, "northbound", "Logical_Switch", u)).toEqual({ _uuid: u, name: "a" });
});

test("a list is serialised once per cache version", () => {
  const cache = new DatabaseCache("OVN_Northbound");
  cache.replaceAll(schema, { Logical_Switch: { [u]: { initial: { name: "a" } } } });
  const first = tableListJson(cache, "northbound", "Logical_Switch");
  expect(tableListJson(cache, "northbound", "Logical_Switch")).toBe(first);
  cache.apply({ Logical_Switch: { [u]: { modify: { name: "b" } } } });
  expect(JSON.parse(tableListJson(cache, "northbound", "Logical_Switch"))).toEqual([{ _uuid: u, name: "b" }]);
});
