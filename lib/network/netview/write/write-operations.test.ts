import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConflictError, ValidationError } from "../../../foundation/errors/svc-error.ts";
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
    Rule: {
      isRoot: true,
      indexes: [["name"]],
      columns: {
        name: { type: { key: { type: "string", maxLength: 5 } } },
        direction: { type: { key: { type: "string", enum: ["set", ["in", "out"]] } } },
        priority: { type: { key: { type: "integer", minInteger: 0, maxInteger: 100 } } },
        rates: {
          type: {
            key: { type: "string", enum: ["set", ["rate", "burst"]] },
            value: { type: "integer", minInteger: 1 },
            min: 0,
            max: "unlimited",
          },
        },
      },
    },
    Global: { isRoot: true, maxRows: 1, columns: { cfg: { type: "integer" } } },
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
const rule: Row = {
  _uuid: "33333333-3333-3333-3333-333333333333",
  name: "r0",
  direction: "in",
  priority: 1,
  rates: {},
};
const global: Row = { _uuid: "44444444-4444-4444-4444-444444444444", cfg: 0 };
const rows: Record<string, Row[]> = { Switch: [sw], Port: [port], Rule: [rule], Global: [global] };
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
      "expected an integer",
    );
    expect(
      refusal([{ op: "update", table: "Switch", uuid: sw._uuid, set: { ports: [sw._uuid] } }]),
    ).toContain("is no Port row");
    expect(refusal([{ op: "update", table: "Switch", uuid: sw._uuid, set: { name: "sw0" } }])).toBe(
      "invalid operations: they change nothing",
    );
  });

  test("any body is either read or refused as a validation error or a conflict", () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.constant(sw._uuid),
      fc.constant("@p"),
      fc.constant(port._uuid),
      fc.constantFrom("a\u0000b", "\ud800", ["x", "\udfff"], { k: "\u0000" }, { "\ud83d": "v" }),
    );
    const op = fc.record(
      {
        op: fc.constantFrom("insert", "update", "delete", "x"),
        table: fc.constantFrom("Switch", "Port", "Rule", "Global", "Nope"),
        uuid: fc.constantFrom(sw._uuid, port._uuid, rule._uuid, "x", "@p", "@q"),
        name: fc.constantFrom("sw0", "p0"),
        ref: fc.constantFrom("p", "q", "1"),
        row: fc.dictionary(
          fc.constantFrom("name", "ports", "config", "tag", "zz", "priority", "rates"),
          value,
        ),
        set: fc.dictionary(fc.constantFrom("name", "ports", "config", "tag", "kind", "direction"), value),
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
            expect(error instanceof ValidationError || error instanceof ConflictError).toBe(true);
          }
        },
      ),
    );
  });
});

describe("what the schema says", () => {
  const refusal = (operations: unknown[]) => {
    try {
      readWriteRequest({ operations }, schema, lookup);
    } catch (error) {
      return [(error as Error).constructor.name, (error as Error).message];
    }
    return "accepted";
  };

  test("enums, integer bounds and string lengths, each named by its member", () => {
    expect(
      refusal([
        {
          op: "insert",
          table: "Rule",
          row: { name: "abcdef", direction: "sideways", priority: 101, rates: { rate: 0, peak: 2 } },
        },
      ]),
    ).toEqual([
      "ValidationError",
      "invalid operations: operations[0].row.name: must be at most 5 characters long; operations[0].row.direction: must be one of in, out; operations[0].row.priority: must be an integer from 0 to 100; operations[0].row.rates.rate: must be an integer of at least 1",
    ]);
    expect(refusal([{ op: "insert", table: "Rule", row: { rates: { burst: 1, peak: 1 } } }])).toEqual([
      "ValidationError",
      "invalid operations: operations[0].row.rates.peak: the key must be one of rate, burst",
    ]);
    expect(refusal([{ op: "insert", table: "Rule", row: { name: "😀😀😀😀😀", rates: { burst: 1 } } }])).toBe(
      "accepted",
    );
  });

  test("NUL and lone surrogates anywhere in the body, before any other rule", () => {
    expect(refusal([{ op: "insert", table: "Rule", row: { name: "a\u0000" } }])).toEqual([
      "ValidationError",
      "invalid body: operations.0.row.name: must not contain the NUL character",
    ]);
    expect(refusal([{ op: "insert", table: "Switch", row: { config: { "k\ud800": "v" } } }])).toEqual([
      "ValidationError",
      "invalid body: operations.0.row.config.k\\ud800: has a member name that must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)",
    ]);
  });

  test("a unique index and a row limit are judged over the rows the plan leaves: 409", () => {
    expect(refusal([{ op: "insert", table: "Rule", row: { name: "r0" } }])).toEqual([
      "ConflictError",
      `conflicting operations: operations[0].row.name: Rule row ${rule._uuid} has the same name (unique in the schema)`,
    ]);
    expect(
      refusal([
        { op: "insert", table: "Rule", ref: "a", row: { name: "r1" } },
        { op: "insert", table: "Rule", row: { name: "r1" } },
      ]),
    ).toEqual([
      "ConflictError",
      "conflicting operations: operations[1].row.name: Rule row @a of this plan has the same name (unique in the schema)",
    ]);
    // Renaming the old row out of the way first makes room.
    expect(
      refusal([
        { op: "update", table: "Rule", uuid: rule._uuid, set: { name: "old" } },
        { op: "insert", table: "Rule", row: { name: "r0" } },
      ]),
    ).toBe("accepted");
    expect(refusal([{ op: "insert", table: "Global", row: { cfg: 1 } }])).toEqual([
      "ConflictError",
      "conflicting operations: operations[0].row: Global holds at most 1 row",
    ]);
  });

  test("an update may name a row inserted earlier in the plan by @ref; no wait is asked for it", () => {
    const request = readWriteRequest(
      {
        operations: [
          { op: "insert", table: "Switch", ref: "ls", row: { name: "new" } },
          { op: "update", table: "Switch", uuid: "@ls", set: { config: { a: "1" } } },
        ],
      },
      schema,
      lookup,
    );
    expect(request.changes[1]).toEqual({
      kind: "update",
      table: "Switch",
      uuid: "@ls",
      before: {},
      after: { config: { a: "1" } },
    });
    const tx = transactionOf(schema, request, "c");
    expect(tx.operations.slice(1)).toEqual([
      { op: "insert", table: "Switch", row: { name: "new" }, "uuid-name": "ls" },
      {
        op: "update",
        table: "Switch",
        where: [["_uuid", "==", ["named-uuid", "ls"]]],
        row: { config: ["map", [["a", "1"]]] },
      },
    ]);
    expect(refusal([{ op: "update", table: "Switch", uuid: "@ls", set: { name: "x" } }])).toEqual([
      "ValidationError",
      "invalid operations: operations[0].uuid: @ls names no row inserted before it in this plan",
    ]);
    expect(
      refusal([
        { op: "insert", table: "Port", ref: "p", row: { name: "p" } },
        { op: "update", table: "Switch", uuid: "@p", set: { name: "x" } },
        { op: "delete", table: "Port", uuid: "@p" },
      ]),
    ).toEqual([
      "ValidationError",
      "invalid operations: operations[1].uuid: @p is a Port row, not a Switch row; operations[2].uuid: @p is inserted by this plan: leave out its insert rather than delete it",
    ]);
  });

  test("no transaction is built holding text ovsdb-server cannot take", () => {
    expect(() =>
      transactionOf(schema, { changes: [{ kind: "insert", table: "Port", row: { name: "\u0000" } }] }, "c"),
    ).toThrow(
      "a plan holds text ovsdb-server cannot take: operations.1.row.name: must not contain the NUL character",
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
