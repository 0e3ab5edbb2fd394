import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { ChangeEvent } from "./change-event.ts";
import {
  eventFilterParameters,
  eventLimit,
  matchesFilter,
  parseEventFilter,
  type QueryValues,
} from "./event-filter.ts";

const clusters = ["default", "east"];
const parse = (query: QueryValues) => parseEventFilter(query, { clusters });
const refusal = (query: QueryValues): string => {
  try {
    parse(query);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error("accepted");
};

describe("parseEventFilter", () => {
  test("reads lists, repeats, bounds and instants", () => {
    expect(
      parse({
        cluster: "east",
        database: ["nb", "sb"],
        table: "Logical_Switch, ACL",
        op: "insert,delete",
        uuid: "2273ad68-496e-4656-9d60-f931f987902d",
        since: "10",
        before: "99",
        from: "2026-11-23T10:00:00+01:00",
        to: "2026-11-23T10:00:00Z",
        limit: "5",
      }),
    ).toEqual({
      clusters: ["east"],
      databases: ["nb", "sb"],
      tables: ["Logical_Switch", "ACL"],
      ops: ["insert", "delete"],
      uuids: ["2273ad68-496e-4656-9d60-f931f987902d"],
      since: 10,
      before: 99,
      from: "2026-11-23T09:00:00.000Z",
      to: "2026-11-23T10:00:00.000Z",
      limit: 5,
    });
    expect(parse({})).toEqual({ limit: eventLimit.default });
  });

  test("names every bad parameter at once", () => {
    const message = refusal({
      cluster: "west",
      database: "ovs",
      limit: "0",
      since: "-1",
      from: "yesterday",
      tabel: "x",
    });
    for (const part of [
      "tabel: not a parameter",
      'cluster: "west"',
      'database: "ovs"',
      "limit:",
      "since:",
      "from:",
    ]) {
      expect(message).toContain(part);
    }
    expect(refusal({ limit: String(eventLimit.max + 1) })).toContain(
      "limit: takes an integer from 1 to 1000",
    );
    expect(refusal({ uuid: "nope" })).toContain("not a uuid");
  });

  test("any query either parses or is refused as a validation error, never anything else", () => {
    const names = fc.constantFrom(...eventFilterParameters, "x");
    fc.assert(
      fc.property(
        fc.dictionary(names, fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))),
        (query) => {
          try {
            const filter = parse(query);
            expect(filter.limit).toBeGreaterThanOrEqual(1);
            expect(filter.limit).toBeLessThanOrEqual(eventLimit.max);
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
          }
        },
      ),
    );
  });
});

describe("matchesFilter", () => {
  const event = {
    seq: 1,
    at: "2026-11-23T10:00:00.000Z",
    cluster: "default",
    database: "nb",
    table: "ACL",
    uuid: "2273ad68-496e-4656-9d60-f931f987902d",
    op: "insert",
    txn: 1,
    resync: false,
    coalesced: false,
    old: null,
    new: { _uuid: "2273ad68-496e-4656-9d60-f931f987902d" },
  } satisfies ChangeEvent;

  test("every given list must hold the event's member", () => {
    expect(matchesFilter(parse({}), event)).toBe(true);
    expect(matchesFilter(parse({ database: "nb", table: "ACL,NAT" }), event)).toBe(true);
    expect(matchesFilter(parse({ database: "sb" }), event)).toBe(false);
    expect(matchesFilter(parse({ op: "update" }), event)).toBe(false);
    expect(matchesFilter(parse({ cluster: "east" }), event)).toBe(false);
  });
});
