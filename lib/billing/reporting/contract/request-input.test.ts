import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { pageQuery } from "./common-schemas.ts";
import { readPart, readQuery } from "./request-input.ts";

const Query = Type.Object(
  {
    ...pageQuery,
    from: Type.Optional(Type.String({ format: "date-time" })),
    flag: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const read = (qs: string) => readQuery(Query, new URL(`http://localhost/x?${qs}`));

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors ?? [];
    throw error;
  }
  throw new Error("not refused");
}

describe("readQuery", () => {
  test("limit defaults to 100 and takes plain integers 1..1000", () => {
    expect(read("")).toEqual({ limit: 100 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (n) => {
        expect(read(`limit=${n}`)).toEqual({ limit: n });
      }),
    );
  });

  test("0, 1001, abc, 1.5, 1e3, 0x10 and an empty limit are refused at query.limit", () => {
    for (const bad of ["0", "1001", "abc", "1.5", "1e3", "0x10", "", " 7", "-1"]) {
      expect(refusal(() => read(`limit=${encodeURIComponent(bad)}`)).map((e) => e.loc)).toEqual([
        "query.limit",
      ]);
    }
  });

  test("any text that is not a plain integer in range is refused, never coerced", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const valid = /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1000 && text.length <= 15;
        if (valid) expect(read(`limit=${encodeURIComponent(text)}`).limit).toBe(Number(text));
        else expect(refusal(() => read(`limit=${encodeURIComponent(text)}`))[0]?.loc).toBe("query.limit");
      }),
    );
  });

  test("unknown and repeated parameters are refused; dates must be RFC 3339 with an offset", () => {
    expect(refusal(() => read("limt=5"))).toEqual([{ loc: "query.limt", msg: "Unexpected property" }]);
    expect(refusal(() => read("limit=5&limit=6"))).toEqual([
      { loc: "query.limit", msg: "is given more than once" },
    ]);
    expect(read("from=2026-11-01T00:00:00%2B01:00").from).toBe("2026-11-01T00:00:00+01:00");
    for (const bad of ["2026-11-01", "2026-11-01T00:00:00", "2026-02-30T00:00:00Z", "yesterday"]) {
      expect(refusal(() => read(`from=${bad}`)).map((e) => e.loc)).toEqual(["query.from"]);
    }
    expect(read("flag=true").flag).toBe(true);
    expect(refusal(() => read("flag=yes")).map((e) => e.loc)).toEqual(["query.flag"]);
  });
});

describe("U+0000, which PostgreSQL cannot hold", () => {
  test("in a query parameter, a body string or a member name is 400 at its location", () => {
    expect(refusal(() => read("from=%00"))).toEqual([{ loc: "query.from", msg: "must not contain U+0000" }]);
    const Body = Type.Object({ a: Type.String(), m: Type.Record(Type.String(), Type.Unknown()) });
    expect(
      refusal(() => readPart(Body, { a: "x\u0000", m: { k: ["ok", "\u0000"], "bad\u0000": 1 } }, "body")),
    ).toEqual([
      { loc: "body.a", msg: "must not contain U+0000" },
      { loc: "body.m.k.1", msg: "must not contain U+0000" },
      { loc: "body.m", msg: "must not name a member with U+0000" },
    ]);
  });
});

describe("readPart", () => {
  test("every violation located under its part, one per location", () => {
    const Body = Type.Object(
      { a: Type.String(), b: Type.Object({ c: Type.Integer() }, { additionalProperties: false }) },
      { additionalProperties: false },
    );
    expect(refusal(() => readPart(Body, { b: { c: "x", d: 1 }, e: 2 }, "body"))).toEqual([
      { loc: "body.a", msg: "Expected required property" },
      { loc: "body.b.c", msg: "Expected integer" },
      { loc: "body.b.d", msg: "Unexpected property" },
      { loc: "body.e", msg: "Unexpected property" },
    ]);
  });
});
