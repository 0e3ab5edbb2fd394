import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { testSchema } from "../../../harness/netview/ovsdb-test-schema.ts";
import { type Atom, decodeValue, encodeValue, type Row } from "./datum.ts";
import { applyColumnDiff, planUpdate2, UpdateError } from "./update2.ts";

const schema = testSchema(["name", "n", "tag", "ref", "tags", "ids", "queues"]);
const table = schema.tables.T;
if (table === undefined) throw new Error("test schema");
const col = (name: string) => {
  const c = table.columns[name];
  if (c === undefined) throw new Error(name);
  return c.type;
};
const u1 = "11111111-1111-1111-1111-111111111111";
const u2 = "22222222-2222-2222-2222-222222222222";

describe("decoding", () => {
  test("initial rows get omitted columns at their defaults and the documented convention", () => {
    const changes = planUpdate2(schema, () => undefined, {
      T: {
        [u1]: {
          initial: {
            name: "a",
            ref: ["uuid", u2],
            tags: ["set", ["b", "a"]],
            ids: [
              "map",
              [
                ["z", "1"],
                ["k", "2"],
              ],
            ],
            queues: [
              "map",
              [
                [10, ["uuid", u2]],
                [2, ["uuid", u1]],
              ],
            ],
          },
        },
      },
    });
    expect(changes).toEqual([
      {
        table: "T",
        uuid: u1,
        old: undefined,
        new: {
          _uuid: u1,
          name: "a",
          n: 0,
          tag: null,
          ref: u2,
          tags: ["a", "b"],
          ids: { k: "2", z: "1" },
          queues: { "2": u1, "10": u2 },
        },
      },
    ]);
  });

  test("a bare atom is a one-element set", () => {
    expect(decodeValue("x", col("tags"))).toEqual(["x"]);
    expect(decodeValue(["set", []], col("tag"))).toBeNull();
    expect(decodeValue(7, col("tag"))).toBe(7);
  });

  test("a map key named like an Object.prototype member is an ordinary key", () => {
    const ids = decodeValue(
      [
        "map",
        [
          ["__proto__", "a"],
          ["constructor", "b"],
        ],
      ],
      col("ids"),
    ) as Record<string, Atom>;
    expect(Object.keys(ids)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(ids)).toBe(Object.prototype);
    expect(encodeValue(ids, col("ids"))).toEqual([
      "map",
      [
        ["__proto__", "a"],
        ["constructor", "b"],
      ],
    ]);
  });

  test("wrong atom types are refused", () => {
    expect(() => decodeValue("x", col("n"))).toThrow();
    expect(() => decodeValue(["set", [1, 2]], col("tag"))).toThrow();
  });
});

describe("modify", () => {
  const old: Row = {
    _uuid: u1,
    name: "a",
    n: 1,
    tag: 5,
    ref: null,
    tags: ["a", "b"],
    ids: { k: "1", m: "2" },
    queues: {},
  };
  const lookup = (_t: string, uuid: string) => (uuid === u1 ? old : undefined);

  test("scalars replace, sets take the symmetric difference, maps change keys", () => {
    const [change] = planUpdate2(schema, lookup, {
      T: {
        [u1]: {
          modify: {
            n: 2,
            tag: ["set", []],
            tags: ["set", ["a", "c"]],
            ids: [
              "map",
              [
                ["k", "1"],
                ["m", "3"],
                ["n", "4"],
              ],
            ],
          },
        },
      },
    });
    expect(change?.new).toEqual({
      _uuid: u1,
      name: "a",
      n: 2,
      tag: null,
      ref: null,
      tags: ["b", "c"],
      ids: { m: "3", n: "4" },
      queues: {},
    });
    expect(old.tags).toEqual(["a", "b"]);
  });

  test("modify or delete of an unknown row and insert of a known one are refused", () => {
    expect(() => planUpdate2(schema, lookup, { T: { [u2]: { modify: { n: 1 } } } })).toThrow(UpdateError);
    expect(() => planUpdate2(schema, lookup, { T: { [u2]: { delete: null } } })).toThrow(UpdateError);
    expect(() => planUpdate2(schema, lookup, { T: { [u1]: { insert: {} } } })).toThrow(UpdateError);
    expect(() => planUpdate2(schema, lookup, { X: {} })).toThrow(UpdateError);
  });

  test("delete", () => {
    expect(planUpdate2(schema, lookup, { T: { [u1]: { delete: null } } })).toEqual([
      { table: "T", uuid: u1, old, new: undefined },
    ]);
  });
});

/** The diff ovsdb-server sends (ovsdb_datum_diff): the symmetric difference, or changed map keys. */
function serverSetDiff(a: string[], b: string[]): unknown {
  const sa = new Set(a);
  const sb = new Set(b);
  return ["set", [...a.filter((x) => !sb.has(x)), ...b.filter((x) => !sa.has(x))]];
}

function serverMapDiff(a: Record<string, string>, b: Record<string, string>): unknown {
  const pairs: [string, string][] = [];
  for (const [k, v] of Object.entries(a)) if (!(k in b)) pairs.push([k, v]);
  for (const [k, v] of Object.entries(b)) if (a[k] !== v) pairs.push([k, v]);
  return ["map", pairs];
}

describe("properties", () => {
  const atom = fc.string({ maxLength: 4 });
  const setArb = fc.uniqueArray(atom, { maxLength: 8 });
  const mapArb = fc.dictionary(atom, atom, { maxKeys: 8 });

  test("a set diff applied to the old set yields the new set", () => {
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const old = decodeValue(["set", a], col("tags"));
        expect(applyColumnDiff(old, serverSetDiff(a, b), col("tags"))).toEqual(
          decodeValue(["set", b], col("tags")),
        );
      }),
    );
  });

  test("a map diff applied to the old map yields the new map", () => {
    fc.assert(
      fc.property(mapArb, mapArb, (a, b) => {
        const old = decodeValue(["map", Object.entries(a)], col("ids"));
        expect(applyColumnDiff(old, serverMapDiff(a, b), col("ids"))).toEqual(
          decodeValue(["map", Object.entries(b)], col("ids")),
        );
      }),
    );
  });

  test("encode then decode is the identity for every column kind", () => {
    const uuid = fc.uuid();
    fc.assert(
      fc.property(
        fc.record({
          tags: setArb.map((s) => [...s].sort()),
          ref: fc.option(uuid, { nil: null }),
          queues: fc.dictionary(fc.nat(99).map(String), uuid),
          n: fc.integer(),
        }),
        (values) => {
          for (const [name, value] of Object.entries(values)) {
            const decoded = decodeValue(encodeValue(value as Atom[], col(name)), col(name));
            expect(decoded).toEqual(decodeValue(encodeValue(decoded, col(name)), col(name)));
            if (name !== "queues") expect(decoded).toEqual(value);
          }
        },
      ),
    );
  });
});
