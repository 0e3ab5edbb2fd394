import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { ValidationError } from "../errors/svc-error.ts";
import { readPart, readQuery } from "./request-input.ts";

const pageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
};

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
    expect(refusal(() => read("limt=5"))).toEqual([
      { loc: "query.limt", msg: "is not a member (its members are limit, cursor, from, flag)" },
    ]);
    expect(refusal(() => read("limit=5&limit=6"))).toEqual([
      { loc: "query.limit", msg: "is given more than once" },
    ]);
    for (const bad of ["2026-11-01", "2026-11-01T00:00:00", "2026-02-30T00:00:00Z", "yesterday"]) {
      expect(refusal(() => read(`from=${bad}`)).map((e) => e.loc)).toEqual(["query.from"]);
    }
    expect(read("flag=true").flag).toBe(true);
    expect(refusal(() => read("flag=yes")).map((e) => e.loc)).toEqual(["query.flag"]);
  });
});

const nul = "must not contain the NUL character";
const lone = "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)";

describe("the text guard: U+0000 and lone surrogates, which PostgreSQL cannot hold", () => {
  test("in a query parameter, a body string or a member name is 400 at its location", () => {
    expect(refusal(() => read("from=%00"))).toEqual([{ loc: "query.from", msg: nul }]);
    const Body = Type.Object({ a: Type.String(), m: Type.Record(Type.String(), Type.Unknown()) });
    expect(
      refusal(() =>
        readPart(Body, { a: "x\u0000", m: { k: ["ok", "\ud800"], "bad\u0000": 1, "\udc00": 2 } }, "body"),
      ),
    ).toEqual([
      { loc: "body.a", msg: nul },
      { loc: "body.m.k.1", msg: lone },
      { loc: "body.m.bad\\u0000", msg: `has a member name that ${nul}` },
      { loc: "body.m.\\udc00", msg: `has a member name that ${lone}` },
    ]);
  });

  test("a surrogate pair is one character and passes", () => {
    const Body = Type.Object({ a: Type.String() });
    expect(readPart(Body, { a: "😀" }, "body")).toEqual({ a: "😀" });
  });
});

describe("date-times", () => {
  const Body = Type.Object(
    {
      at: Type.String({ format: "date-time" }),
      until: Type.Optional(Type.Union([Type.String({ format: "date-time" }), Type.Null()])),
      list: Type.Optional(Type.Array(Type.String({ format: "date-time" }))),
      note: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  );

  test("reach the handler in canonical UTC form, wherever the schema declares one", () => {
    expect(
      readPart(
        Body,
        {
          at: "2026-01-01T00:00:00+16:00",
          until: "2026-01-01T00:00:00.123456789-23:59",
          list: ["2026-01-01 10:00:00z"],
          note: "2026-01-01T00:00:00+01:00",
        },
        "body",
      ),
    ).toEqual({
      at: "2025-12-31T08:00:00.000Z",
      until: "2026-01-01T23:59:00.123Z",
      list: ["2026-01-01T10:00:00.000Z"],
      note: "2026-01-01T00:00:00+01:00",
    });
    expect(read("from=2026-11-01T00:00:00%2B01:00").from).toBe("2026-10-31T23:00:00.000Z");
  });

  test("each refusal says why, at the member", () => {
    expect(refusal(() => readPart(Body, { at: "0001-01-01T00:00:00+01:00" }, "body"))).toEqual([
      { loc: "body.at", msg: "must fall within the years 0001 to 9999 once its offset is applied (UTC)" },
    ]);
    expect(refusal(() => readPart(Body, { at: `2026-01-01T00:00:00.${"1".repeat(200)}Z` }, "body"))).toEqual([
      { loc: "body.at", msg: "must give at most 9 digits of a second's fraction" },
    ]);
    expect(refusal(() => readPart(Body, { at: "2026-01-01T00:00:00+24:00" }, "body"))).toEqual([
      { loc: "body.at", msg: "must have an offset from -23:59 to +23:59" },
    ]);
    expect(
      refusal(() =>
        readPart(Body, { at: "2026-01-01T00:00:00Z", until: "9999-12-31T23:00:00-01:00" }, "body"),
      ),
    ).toEqual([
      {
        loc: "body.until",
        msg: "must fall within the years 0001 to 9999 once its offset is applied (UTC)",
      },
    ]);
  });
});

describe("messages name what the member accepts", () => {
  test("literal unions, bounded strings and integers, nullable members, required members", () => {
    const Q = Type.Object(
      {
        interval: Type.Union([Type.Literal("1h"), Type.Literal("1d")]),
        name: Type.Optional(Type.Union([Type.String({ maxLength: 3 }), Type.Null()])),
        id: Type.Optional(Type.String({ format: "uuid" })),
        n: Type.Optional(Type.Integer({ minimum: 1 })),
        code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z]+$" })),
      },
      { additionalProperties: false },
    );
    expect(
      refusal(() => readPart(Q, { interval: "1w", name: "abcd", id: "x", n: 0, code: "A" }, "query")),
    ).toEqual([
      { loc: "query.code", msg: "must be a string of 1 to 64 characters matching ^[a-z]+$" },
      { loc: "query.id", msg: "must be a UUID (8-4-4-4-12 hexadecimal digits)" },
      { loc: "query.interval", msg: "must be one of 1h, 1d" },
      { loc: "query.n", msg: "must be an integer at least 1" },
      { loc: "query.name", msg: "must be a string of at most 3 characters or null" },
    ]);
    expect(refusal(() => readPart(Q, {}, "query"))).toEqual([
      { loc: "query.interval", msg: "is required: one of 1h, 1d" },
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
      { loc: "body.a", msg: "is required: a string" },
      { loc: "body.b.c", msg: "must be an integer" },
      { loc: "body.b.d", msg: "is not a member (its members are c)" },
      { loc: "body.e", msg: "is not a member (its members are a, b)" },
    ]);
  });
});

describe("path parameters", () => {
  test("one the router could not percent-decode is said so", () => {
    const Params = Type.Object({ id: Type.String(), cloud: Type.String() });
    expect(refusal(() => readPart(Params, { id: null, cloud: undefined }, "path"))).toEqual([
      { loc: "path.id", msg: "must be percent-encoded UTF-8 text" },
      { loc: "path.cloud", msg: "must be percent-encoded UTF-8 text" },
    ]);
  });
});
