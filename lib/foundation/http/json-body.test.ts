import { describe, expect, test } from "bun:test";
import { SvcError } from "../errors/svc-error.ts";
import { isJsonMediaType, readJsonBody } from "./json-body.ts";

function request(body: string, type: string | null): Request {
  const headers = new Headers();
  if (type !== null) headers.set("content-type", type);
  const req = new Request("http://localhost/x", { method: "POST", body });
  // A string body makes fetch declare text/plain: set exactly what the case says, or nothing.
  req.headers.delete("content-type");
  for (const [k, v] of headers) req.headers.set(k, v);
  return req;
}

async function refusal(body: string, type: string | null, maxDepth = 8, maxBytes?: number) {
  try {
    await readJsonBody(request(body, type), { maxDepth, ...(maxBytes === undefined ? {} : { maxBytes }) });
    return null;
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return { code: error.code as string, message: error.message, errors: error.errors };
  }
}

describe("isJsonMediaType", () => {
  test("application/json and +json types with any parameters; nothing declared counts as JSON", () => {
    for (const yes of [
      "application/json",
      "Application/JSON; charset=utf-8",
      "application/problem+json",
      "application/vnd.svc.events+json;v=1",
      null,
      "",
    ]) {
      expect({ type: yes, json: isJsonMediaType(yes) }).toEqual({ type: yes, json: true });
    }
    for (const no of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonp",
      "application/json-seq",
      "text/json+",
    ]) {
      expect({ type: no, json: isJsonMediaType(no) }).toEqual({ type: no, json: false });
    }
  });
});

describe("readJsonBody", () => {
  test("reads JSON declared or undeclared", async () => {
    expect(await readJsonBody(request('[{"a":1}]', "application/json"), { maxDepth: 8 })).toEqual([{ a: 1 }]);
    expect(await readJsonBody(request('{"a":"\\u0000"}', null), { maxDepth: 8 })).toEqual({ a: "\u0000" });
  });

  test("415 for a declared media type that is not JSON, before the body is read", async () => {
    expect(await refusal("[]", "text/plain;charset=UTF-8")).toEqual({
      code: "unsupported_media_type",
      message: "the body must be JSON (Content-Type: application/json)",
      errors: undefined,
    });
    expect((await refusal("a=1", "application/x-www-form-urlencoded"))?.code).toBe("unsupported_media_type");
  });

  test("413 past maxBytes, counted in bytes", async () => {
    expect(await refusal(`"${"é".repeat(6)}"`, null, 8, 13)).toEqual({
      code: "payload_too_large",
      message: "a body holds at most 13 bytes",
      errors: undefined,
    });
    expect(await refusal(`"${"é".repeat(5)}"`, null, 8, 12)).toBeNull();
  });

  test("400 for text that is not JSON", async () => {
    for (const text of ["", "{", "[1,]", "nul", "{'a':1}"]) {
      expect(await refusal(text, "application/json")).toEqual({
        code: "validation",
        message: "the request body is not JSON",
        errors: [{ loc: "body", msg: "must be a JSON document" }],
      });
    }
  });

  test("400 for bytes that are not UTF-8: never replaced by U+FFFD", async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]); // {"a":"<CESU surrogate>"}
    const req = new Request("http://localhost/x", { method: "POST", body: bytes });
    req.headers.set("content-type", "application/json");
    const refused = await readJsonBody(req, { maxDepth: 8 }).catch((e: SvcError) => e);
    expect(refused).toBeInstanceOf(SvcError);
    expect((refused as SvcError).errors).toEqual([{ loc: "body", msg: "must be UTF-8 text" }]);
  });

  test("400 past maxDepth, for a body of any depth, without recursing", async () => {
    expect(await refusal("[[[[1]]]]", null, 4)).toBeNull();
    const expected = {
      code: "validation",
      message: "the request body nests deeper than 4 levels",
      errors: [{ loc: "body", msg: "must not nest objects and arrays more than 4 levels deep" }],
    };
    expect(await refusal("[[[[[1]]]]]", null, 4)).toEqual(expected);
    const million = `${'{"a":['.repeat(500_000)}${"]}".repeat(500_000)}`;
    expect(await refusal(million, "application/json", 4)).toEqual(expected);
  });
});
