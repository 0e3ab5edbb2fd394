import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { monitorParts } from "./monitor-parts.ts";
import { parseSchema } from "./schema.ts";

const sb = parseSchema(JSON.parse(readFileSync("/usr/share/ovn/ovn-sb.ovsschema", "utf8")));
const flow = (pipeline: string) => ({ _uuid: "u", pipeline });

describe("monitorParts", () => {
  test("the split table in one conditional part per enum value, every other table in the first", () => {
    const parts = monitorParts("OVN_Southbound", sb, undefined, {
      table: "Logical_Flow",
      column: "pipeline",
    });
    expect(parts.map((p) => p.id)).toEqual([
      "OVN_Southbound",
      "OVN_Southbound Logical_Flow ingress",
      "OVN_Southbound Logical_Flow egress",
    ]);
    const [first, ingress, egress] = parts;
    expect(Object.keys(first?.requests ?? {})).toHaveLength(Object.keys(sb.tables).length - 1);
    expect(first?.requests.Logical_Flow).toBeUndefined();
    expect(ingress?.requests.Logical_Flow).toEqual([
      { columns: sb.tables.Logical_Flow?.columnNames, where: [["pipeline", "==", "ingress"]] },
    ]);
    // Every row is owned by exactly one part.
    for (const row of [flow("ingress"), flow("egress")]) {
      expect(parts.filter((p) => p.owns("Logical_Flow", row))).toHaveLength(1);
    }
    expect(parts.filter((p) => p.owns("Port_Binding", { _uuid: "u" }))).toEqual(
      first === undefined ? [] : [first],
    );
    expect(egress?.owns("Logical_Flow", flow("egress"))).toBe(true);
  });

  test("one part, named as the database, without a split or when the column cannot split", () => {
    for (const split of [
      undefined,
      { table: "Logical_Flow", column: "table_id" }, // an integer: no enum
      { table: "Logical_Flow", column: "nope" },
      { table: "Port_Binding", column: "type" }, // a string without an enum
    ]) {
      const parts = monitorParts("OVN_Southbound", sb, undefined, split);
      expect(parts.map((p) => p.id)).toEqual(["OVN_Southbound"]);
      expect(Object.keys(parts[0]?.requests ?? {})).toHaveLength(Object.keys(sb.tables).length);
    }
  });

  test("a split table the monitor leaves out splits nothing", () => {
    const parts = monitorParts("OVN_Southbound", sb, ["Chassis"], {
      table: "Logical_Flow",
      column: "pipeline",
    });
    expect(parts.map((p) => Object.keys(p.requests))).toEqual([["Chassis"]]);
  });
});
