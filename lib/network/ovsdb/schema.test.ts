import { describe, expect, test } from "bun:test";
import { parseSchema, SchemaError } from "./schema.ts";

const schema = (columns: Record<string, unknown>, table: Record<string, unknown> = {}) =>
  parseSchema({ name: "D", version: "1.0.0", tables: { T: { columns, ...table } } }).tables.T;

describe("constraints of a column's atoms", () => {
  test("enum, integer and real bounds, string lengths and reference kinds are kept", () => {
    const t = schema({
      dir: { type: { key: { type: "string", enum: ["set", ["from-lport", "to-lport"]] } } },
      one: { type: { key: { type: "string", enum: "only" } } },
      prio: { type: { key: { type: "integer", minInteger: 0, maxInteger: 32767 } } },
      ratio: { type: { key: { type: "real", minReal: 0.5 }, min: 0, max: 1 } },
      name: { type: { key: { type: "string", maxLength: 63 } } },
      qos: {
        type: {
          key: { type: "string", enum: ["set", ["dscp"]] },
          value: { type: "integer", minInteger: 0, maxInteger: 63 },
          min: 0,
          max: "unlimited",
        },
      },
      strong: { type: { key: { type: "uuid", refTable: "T" }, min: 0, max: 1 } },
      weak: { type: { key: { type: "uuid", refTable: "T", refType: "weak" }, min: 0, max: 1 } },
    });
    expect(t?.columns.dir?.type.key.enum).toEqual(["from-lport", "to-lport"]);
    expect(t?.columns.one?.type.key.enum).toEqual(["only"]);
    expect(t?.columns.prio?.type.key).toEqual({ type: "integer", minimum: 0, maximum: 32767 });
    expect(t?.columns.ratio?.type.key).toEqual({ type: "real", minimum: 0.5 });
    expect(t?.columns.name?.type.key).toEqual({ type: "string", maxLength: 63 });
    expect(t?.columns.qos?.type.value).toEqual({ type: "integer", minimum: 0, maximum: 63 });
    expect(t?.columns.strong?.type.key.refType).toBe("strong");
    expect(t?.columns.weak?.type.key.refType).toBe("weak");
  });

  test("indexes and maxRows of a table", () => {
    const t = schema(
      { name: { type: "string" }, ip: { type: "string" } },
      { indexes: [["name"], ["name", "ip"]], maxRows: 1 },
    );
    expect(t?.indexes).toEqual([["name"], ["name", "ip"]]);
    expect(t?.maxRows).toBe(1);
    expect(schema({ name: { type: "string" } })?.indexes).toEqual([]);
  });

  test("a schema it cannot use is refused", () => {
    expect(() => schema({ a: { type: "string" } }, { indexes: [["nope"]] })).toThrow(SchemaError);
    expect(() => schema({ a: { type: { key: { type: "integer", minInteger: "0" } } } })).toThrow(SchemaError);
    expect(() => schema({ a: { type: { key: { type: "string", enum: ["set", [{}]] } } } })).toThrow(
      SchemaError,
    );
  });

  test("Debian's northbound schema: the rules issue 28 names", async () => {
    const nb = parseSchema(await Bun.file("/usr/share/ovn/ovn-nb.ovsschema").json());
    expect(nb.tables.ACL?.columns.direction?.type.key.enum).toEqual(["from-lport", "to-lport"]);
    expect(nb.tables.ACL?.columns.priority?.type.key).toMatchObject({ minimum: 0, maximum: 32767 });
    expect(nb.tables.Address_Set?.indexes).toEqual([["name"]]);
    expect(nb.tables.NB_Global?.maxRows).toBe(1);
  });
});
