import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { testSchema } from "../../../harness/netview/ovsdb-test-schema.ts";
import { compare } from "../../foundation/collections/compare.ts";
import type { Row } from "./datum.ts";
import { initialUpdate } from "./initial-update.ts";
import { planUpdate2, UpdateError } from "./update2.ts";

const schema = testSchema(["name", "n", "r", "on", "tag", "ref", "tags", "ids", "queues"]);

const uuidArb = fc.uuid().map((u) => u.toLowerCase());
const rowArb: fc.Arbitrary<Row> = fc.record({
  _uuid: uuidArb,
  name: fc.string(),
  n: fc.integer(),
  r: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
  on: fc.boolean(),
  tag: fc.option(fc.integer({ min: 0, max: 4095 }), { nil: null }),
  ref: fc.option(uuidArb, { nil: null }),
  tags: fc.uniqueArray(fc.string()).map((t) => t.sort()),
  ids: fc
    .dictionary(fc.string(), fc.string())
    .map((d) => Object.fromEntries(Object.entries(d).sort(([a], [b]) => compare(a, b)))),
  queues: fc
    .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 9 }), uuidArb), { selector: ([k]) => k })
    .map((pairs) => Object.fromEntries(pairs.sort(([a], [b]) => a - b).map(([k, v]) => [String(k), v]))),
});

describe("initialUpdate", () => {
  test("decoding the update gives the rows back", () => {
    fc.assert(
      fc.property(fc.uniqueArray(rowArb, { selector: (r) => r._uuid, maxLength: 5 }), (rows) => {
        const changes = planUpdate2(schema, () => undefined, initialUpdate(schema, { T: rows }));
        expect(changes.map((c) => c.new)).toEqual(rows);
      }),
    );
  });

  test("tables and columns the schema lacks are left out; a value that does not fit is refused", () => {
    const u = "11111111-1111-1111-1111-111111111111";
    const update = initialUpdate(schema, { T: [{ _uuid: u, name: "a", extra: "x" }], Other: [{ _uuid: u }] });
    expect(Object.keys(update)).toEqual(["T"]);
    expect(update.T?.[u]?.initial).toEqual({ name: "a" });
    expect(() =>
      planUpdate2(schema, () => undefined, initialUpdate(schema, { T: [{ _uuid: u, n: "seven" }] })),
    ).toThrow(UpdateError);
  });
});
