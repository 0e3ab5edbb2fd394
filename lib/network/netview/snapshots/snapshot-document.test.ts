import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { readSnapshotDocument } from "./snapshot-document.ts";

const u = "2273ad68-496e-4656-9d60-f931f987902d";
const valid = {
  format: "netview-snapshot" as const,
  version: 1 as const,
  id: "x",
  label: "l",
  cluster: "default",
  created_at: "2026-11-23T10:00:00.000Z",
  stale: false,
  databases: {
    nb: {
      schema: { name: "OVN_Northbound", version: "7.0.0" },
      tables: { Logical_Switch: [{ _uuid: u, name: "a", ports: [], other_config: {}, tag: null }] },
    },
    sb: { schema: { name: "OVN_Southbound", version: "20.27.0" }, tables: {} },
  },
};

describe("readSnapshotDocument", () => {
  test("reads an exported document back unchanged", () => {
    expect(readSnapshotDocument(JSON.parse(JSON.stringify(valid)))).toEqual(valid);
  });

  test("names the problems, at most ten and a count of the rest", () => {
    const rows = Array.from({ length: 12 }, () => ({ _uuid: u, bad: { nested: { deep: 1 } } }));
    const body = {
      ...valid,
      databases: { ...valid.databases, nb: { ...valid.databases.nb, tables: { T: rows } } },
    };
    let message = "";
    try {
      readSnapshotDocument(body);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toStartWith("invalid snapshot: databases.nb.tables.T[0].bad: not a column value");
    expect(message).toContain("_uuid 2273ad68-496e-4656-9d60-f931f987902d repeats");
    expect(message).toEndWith("; and 13 more");
  });

  test("any JSON is either read or refused as a validation error", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.constant(valid).map((v) => ({ ...v, databases: { nb: v.databases.nb } })),
        ),
        (body) => {
          try {
            readSnapshotDocument(body);
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
          }
        },
      ),
    );
  });
});
