import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { parseSchema } from "../../ovsdb/schema.ts";
import { outcomeOf, transactionOf } from "./plan.ts";
import { readWriteRequest } from "./write-operations.ts";

const schema = parseSchema({
  name: "NB",
  version: "1.0.0",
  tables: {
    Switch: {
      isRoot: true,
      columns: {
        name: { type: "string" },
        ports: { type: { key: { type: "uuid", refTable: "Port" }, min: 0, max: "unlimited" } },
        config: { type: { key: "string", value: "string", min: 0, max: "unlimited" } },
        tag: { type: { key: "integer", min: 0, max: 1 } },
        kind: { type: "string", mutable: false },
      },
    },
    Port: { columns: { name: { type: "string" } } },
  },
});
const sw: Row = {
  _uuid: "11111111-1111-1111-1111-111111111111",
  name: "sw0",
  ports: [],
  config: {},
  tag: null,
  kind: "",
};
const port: Row = { _uuid: "22222222-2222-2222-2222-222222222222", name: "p0" };
const rows: Record<string, Row[]> = { Switch: [sw], Port: [port] };
const lookup = {
  get: (t: string, u: string) => rows[t]?.find((r) => r._uuid === u),
  rows: (t: string) => rows[t] ?? [],
};

describe("readWriteRequest", () => {
  test("reads inserts with refs, updates by name with only what differs, deletes by uuid", () => {
    const request = readWriteRequest(
      {
        operations: [
          { op: "insert", table: "Port", ref: "p1", row: { name: "p1" } },
          {
            op: "update",
            table: "Switch",
            name: "sw0",
            set: { ports: ["@p1", port._uuid], config: { b: "2", a: "1" }, tag: null },
          },
          { op: "delete", table: "Port", uuid: port._uuid },
        ],
      },
      schema,
      lookup,
    );
    expect(request.changes).toEqual([
      { kind: "insert", table: "Port", ref: "p1", row: { name: "p1" } },
      {
        kind: "update",
        table: "Switch",
        uuid: sw._uuid,
        before: { ports: [], config: {} },
        after: { ports: ["22222222-2222-2222-2222-222222222222", "@p1"], config: { a: "1", b: "2" } },
      },
      { kind: "delete", table: "Port", uuid: port._uuid, before: port },
    ]);
  });

  test("immutable columns, twice-changed rows, unknown rows and types are refused", () => {
    const refusal = (operations: unknown[]) => {
      try {
        readWriteRequest({ operations }, schema, lookup);
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    expect(refusal([{ op: "update", table: "Switch", uuid: sw._uuid, set: { kind: "x" } }])).toContain(
      "not mutable once the row exists",
    );
    expect(
      refusal([
        { op: "update", table: "Switch", uuid: sw._uuid, set: { name: "a" } },
        { op: "delete", table: "Switch", name: "sw0" },
      ]),
    ).toContain("is changed twice in this plan");
    expect(refusal([{ op: "update", table: "Switch", uuid: sw._uuid, set: { tag: 1.5 } }])).toContain(
      "expected a integer",
    );
    expect(
      refusal([{ op: "update", table: "Switch", uuid: sw._uuid, set: { ports: [sw._uuid] } }]),
    ).toContain("is no Port row");
    expect(refusal([{ op: "update", table: "Switch", uuid: sw._uuid, set: { name: "sw0" } }])).toBe(
      "invalid operations: they change nothing",
    );
  });

  test("any body is either read or refused as a validation error", () => {
    const value = fc.oneof(fc.jsonValue(), fc.constant(sw._uuid), fc.constant("@p"), fc.constant(port._uuid));
    const op = fc.record(
      {
        op: fc.constantFrom("insert", "update", "delete", "x"),
        table: fc.constantFrom("Switch", "Port", "Nope"),
        uuid: fc.constantFrom(sw._uuid, port._uuid, "x"),
        name: fc.constantFrom("sw0", "p0"),
        ref: fc.constantFrom("p", "q", "1"),
        row: fc.dictionary(fc.constantFrom("name", "ports", "config", "tag", "zz"), value),
        set: fc.dictionary(fc.constantFrom("name", "ports", "config", "tag", "kind"), value),
      },
      { requiredKeys: ["op", "table"] },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ operations: fc.array(op, { maxLength: 4 }) })),
        (body) => {
          try {
            const request = readWriteRequest(body, schema, lookup);
            // Whatever is read can be written as a transaction.
            expect(transactionOf(schema, request, "t").operations.length).toBeGreaterThan(
              request.changes.length,
            );
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
          }
        },
      ),
    );
  });
});

describe("transactionOf and outcomeOf", () => {
  const plan = {
    changes: [
      { kind: "insert" as const, table: "Port", ref: "p1", row: { name: "p1" } },
      {
        kind: "update" as const,
        table: "Switch",
        uuid: sw._uuid,
        before: { ports: [] },
        after: { ports: ["@p1"] },
      },
      { kind: "insert" as const, table: "Port", uuid: port._uuid, row: { name: "p0" } },
    ],
  };
  const tx = transactionOf(schema, plan, "netview plan x");

  test("a comment, a wait per row read (and per uuid put back), then the changes", () => {
    expect(tx.operations).toEqual([
      { op: "comment", comment: "netview plan x" },
      {
        op: "wait",
        timeout: 0,
        table: "Switch",
        where: [["_uuid", "==", ["uuid", sw._uuid]]],
        columns: ["ports"],
        until: "==",
        rows: [{ ports: ["set", []] }],
      },
      {
        op: "wait",
        timeout: 0,
        table: "Port",
        where: [["_uuid", "==", ["uuid", port._uuid]]],
        columns: ["_uuid"],
        until: "==",
        rows: [],
      },
      { op: "insert", table: "Port", row: { name: "p1" }, "uuid-name": "p1" },
      {
        op: "update",
        table: "Switch",
        where: [["_uuid", "==", ["uuid", sw._uuid]]],
        row: { ports: ["set", [["named-uuid", "p1"]]] },
      },
      { op: "insert", table: "Port", row: { name: "p0" }, uuid: port._uuid },
    ]);
    expect(tx.changeIndex).toEqual([3, 4, 5]);
  });

  test("a failed wait is stale, another error (also the commit's own) a failure; else the new uuids", () => {
    const ok = [
      {},
      {},
      {},
      { uuid: ["uuid", "33333333-3333-3333-3333-333333333333"] },
      { count: 1 },
      { uuid: ["uuid", port._uuid] },
    ];
    expect(outcomeOf(plan, tx, ok)).toEqual({
      state: "applied",
      inserted: { p1: "33333333-3333-3333-3333-333333333333", [port._uuid]: port._uuid },
    });
    expect(outcomeOf(plan, tx, [{}, { error: "timed out" }])).toMatchObject({ state: "stale" });
    expect(outcomeOf(plan, tx, [...ok, { error: "referential integrity violation", details: "x" }])).toEqual({
      state: "failed",
      error: "referential integrity violation: x",
    });
  });
});
