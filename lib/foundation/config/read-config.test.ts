import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "./config-error.ts";
import {
  amqpUrl,
  boolean,
  commaList,
  integer,
  mustBeUnset,
  oneOf,
  path,
  postgresUrl,
  secret,
  splitUrlList,
  text,
  url,
} from "./fields.ts";
import { readConfig } from "./read-config.ts";

function refusal(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.map((p) => p.message);
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("integer", () => {
  const spec = { port: integer("PORT", { default: 8080 }, { min: 1, max: 65535 }) };
  test("default, value, bounds", () => {
    expect(readConfig({}, spec).port).toBe(8080);
    expect(readConfig({ PORT: "" }, spec).port).toBe(8080);
    expect(readConfig({ PORT: " 9090 " }, spec).port).toBe(9090);
    expect(refusal(() => readConfig({ PORT: "0" }, spec))).toEqual([
      'PORT takes an integer from 1 to 65535, got "0"',
    ]);
    for (const bad of ["1.5", "8080x", "0x10", "1e3", "99999999999999999999"]) {
      expect(refusal(() => readConfig({ PORT: bad }, spec))[0]).toStartWith("PORT takes an integer");
    }
  });
  test("positive", () => {
    const s = { n: integer("N", { default: 10 }, { min: 1 }) };
    expect(refusal(() => readConfig({ N: "-3" }, s))).toEqual(['N takes an integer (positive), got "-3"']);
  });
});

describe("boolean", () => {
  const spec = { on: boolean("ON", { default: false }) };
  test("accepted spellings", () => {
    for (const t of ["true", "TRUE", "1", "yes", "on"]) expect(readConfig({ ON: t }, spec).on).toBe(true);
    for (const f of ["false", "False", "0", "no", "off"]) expect(readConfig({ ON: f }, spec).on).toBe(false);
    expect(readConfig({}, spec).on).toBe(false);
    expect(refusal(() => readConfig({ ON: "maybe" }, spec))).toEqual(['ON takes true or false, got "maybe"']);
  });
});

describe("oneOf", () => {
  const spec = { level: oneOf("SVC_LOG_LEVEL", ["DEBUG", "INFO", "WARN", "ERROR"], { default: "INFO" }) };
  test("exact case", () => {
    expect(readConfig({ SVC_LOG_LEVEL: "WARN" }, spec).level).toBe("WARN");
    expect(refusal(() => readConfig({ SVC_LOG_LEVEL: "info" }, spec))).toEqual([
      'SVC_LOG_LEVEL takes exactly one of DEBUG, INFO, WARN, ERROR, got "info"',
    ]);
  });
});

describe("commaList", () => {
  const spec = {
    types: commaList("TYPES", { default: ["infrastructure_tenant"] }, (e) =>
      e === "member_of" ? "member_of attributes no cost" : null,
    ),
  };
  test("default, empty string as the empty list, trimming, duplicates once", () => {
    expect(readConfig({}, spec).types).toEqual(["infrastructure_tenant"]);
    expect(readConfig({ TYPES: "" }, spec).types).toEqual([]);
    expect(readConfig({ TYPES: " a , b,a" }, spec).types).toEqual(["a", "b"]);
  });
  test("empty entries and refused entries", () => {
    expect(refusal(() => readConfig({ TYPES: "a,,b" }, spec))[0]).toContain("without empty entries");
    expect(refusal(() => readConfig({ TYPES: "a," }, spec))[0]).toContain("without empty entries");
    expect(refusal(() => readConfig({ TYPES: "a,member_of" }, spec))).toEqual([
      "TYPES: member_of attributes no cost",
    ]);
  });
});

describe("path and text", () => {
  test("absolute path rule", () => {
    const spec = { p: path("P", { optional: true }, { absolute: true }) };
    expect(readConfig({}, spec).p).toBeUndefined();
    expect(readConfig({ P: "/etc/x.yaml" }, spec).p).toBe("/etc/x.yaml");
    expect(refusal(() => readConfig({ P: "x.yaml" }, spec))).toEqual([
      'P takes an absolute path, got "x.yaml"',
    ]);
  });
  test("text pattern and length", () => {
    const spec = {
      t: text("T", { required: true }, { maxLength: 5, pattern: /^[a-z]+$/, describe: "lower-case letters" }),
    };
    expect(refusal(() => readConfig({}, spec))).toEqual(["T is required"]);
    expect(refusal(() => readConfig({ T: "abcdef" }, spec))).toEqual(["T takes at most 5 characters"]);
    expect(refusal(() => readConfig({ T: "AB" }, spec))).toEqual(['T takes lower-case letters, got "AB"']);
  });
});

describe("url", () => {
  const spec = {
    u: url(
      "U",
      { required: true },
      { schemes: ["https"], noQuery: true, noFragment: true, noUserinfo: true },
    ),
  };
  test("scheme, host, query, fragment and userinfo rules; credentials never quoted", () => {
    expect(readConfig({ U: "https://reporting.example:8443/base" }, spec).u.host).toBe(
      "reporting.example:8443",
    );
    expect(refusal(() => readConfig({ U: "reporting.example" }, spec))).toEqual([
      "U takes an absolute URL with scheme https",
    ]);
    expect(refusal(() => readConfig({ U: "http://x" }, spec))).toEqual([
      "U takes a URL with scheme https, not http",
    ]);
    expect(refusal(() => readConfig({ U: "https://x/?a=1" }, spec))).toEqual([
      "U takes a URL without a query",
    ]);
    expect(refusal(() => readConfig({ U: "https://x/#f" }, spec))).toEqual([
      "U takes a URL without a fragment",
    ]);
    const msg = refusal(() => readConfig({ U: "https://me:hunter2@x/" }, spec));
    expect(msg).toEqual(["U takes a URL without user or password"]);
    expect(msg.join()).not.toContain("hunter2");
  });
  test("a scheme list", () => {
    const s = { db: url("DB", { required: true }, { schemes: ["postgres", "postgresql"] }) };
    expect(readConfig({ DB: "postgresql://u:p@127.0.0.1:5432/db" }, s).db.pathname).toBe("/db");
  });
});

describe("secret", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-config-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  const spec = { token: secret("TOKEN", { required: true }) };

  test("inline, redacted when printed", () => {
    const c = readConfig({ TOKEN: "s3cr3t" }, spec);
    expect(c.token.reveal()).toBe("s3cr3t");
    expect(`${c.token}`).toBe("[redacted]");
    expect(JSON.stringify(c)).toBe('{"token":"[redacted]"}');
    expect(Bun.inspect(c)).not.toContain("s3cr3t");
  });
  test("from a file: one trailing newline trimmed, only one", () => {
    expect(readConfig({ TOKEN_FILE: file("a", "abc\n") }, spec).token.reveal()).toBe("abc");
    expect(readConfig({ TOKEN_FILE: file("b", "abc\r\n") }, spec).token.reveal()).toBe("abc");
    expect(readConfig({ TOKEN_FILE: file("c", "abc\n\n") }, spec).token.reveal()).toBe("abc\n");
    expect(readConfig({ TOKEN_FILE: file("d", " abc ") }, spec).token.reveal()).toBe(" abc ");
  });
  test("empty file, both set, unreadable file, missing: refused without the value", () => {
    expect(refusal(() => readConfig({ TOKEN_FILE: file("e", "") }, spec))[0]).toStartWith(
      "TOKEN_FILE names an empty file",
    );
    expect(refusal(() => readConfig({ TOKEN_FILE: file("f", "\n") }, spec))[0]).toStartWith(
      "TOKEN_FILE names an empty file",
    );
    expect(refusal(() => readConfig({ TOKEN: "x", TOKEN_FILE: file("g", "y") }, spec))).toEqual([
      "set TOKEN or TOKEN_FILE, not both",
    ]);
    expect(refusal(() => readConfig({ TOKEN_FILE: join(dir, "absent") }, spec))[0]).toContain("(ENOENT)");
    const locked = file("h", "zzz-secret");
    chmodSync(locked, 0o000);
    if (process.getuid?.() !== 0) {
      expect(refusal(() => readConfig({ TOKEN_FILE: locked }, spec))[0]).toContain("(EACCES)");
    }
    expect(refusal(() => readConfig({}, spec))).toEqual(["TOKEN is required"]);
  });
  test("a URL secret: checked as one, refused without quoting any part of it", () => {
    const db = { db: secret("DB", { required: true }, { url: postgresUrl }) };
    expect(readConfig({ DB: "postgres://u:pw@h:5432/x" }, db).db.reveal()).toBe("postgres://u:pw@h:5432/x");
    for (const bad of [
      "postgres//u:Pw-9x@h/x",
      "postgres:u:Pw-9x@h/x",
      "u:Pw-9x@h/x",
      "http://u:Pw-9x@h/x",
    ]) {
      const problems = refusal(() => readConfig({ DB: bad }, db));
      expect(problems[0]).toStartWith("DB takes a");
      expect(problems.join()).not.toContain("Pw-9x");
    }
    const amqp = { a: secret("A", { required: true }, { url: amqpUrl }) };
    expect(refusal(() => readConfig({ A: "amqp//guest:guest@h" }, amqp))).toEqual([
      "A takes an absolute URL with scheme amqp or amqps",
    ]);
    expect(readConfig({ A_FILE: file("amqp", "amqps://g:g@h:5671/v\n") }, amqp).a.reveal()).toBe(
      "amqps://g:g@h:5671/v",
    );
  });
  test("a URL list secret: each entry checked, the bad one named by its place, nothing quoted", () => {
    const nodes = { a: secret("A", { required: true }, { url: amqpUrl, urlList: true }) };
    const list = "amqp://g:Pw-9x@h1:5672/v, amqp://g:Pw-9x@h2:5673/v";
    expect(splitUrlList(readConfig({ A: list }, nodes).a.reveal())).toEqual([
      "amqp://g:Pw-9x@h1:5672/v",
      "amqp://g:Pw-9x@h2:5673/v",
    ]);
    expect(readConfig({ A: "amqp://h" }, nodes).a.reveal()).toBe("amqp://h");
    const problems = refusal(() => readConfig({ A: "amqp://g:Pw-9x@h1/v,http://g:Pw-9x@h2/v" }, nodes));
    expect(problems).toEqual([
      "A takes a URL with scheme amqp or amqps, not http (entry 2 of the comma-separated list)",
    ]);
    expect(refusal(() => readConfig({ A: "amqp://h1/v," }, nodes))).toEqual([
      "A takes an absolute URL with scheme amqp or amqps (entry 2 of the comma-separated list)",
    ]);
  });
  test("optional secret", () => {
    expect(readConfig({}, { s: secret("S", { optional: true }) }).s).toBeUndefined();
  });
});

describe("readConfig", () => {
  test("refuses the whole configuration at once, naming every variable", () => {
    const spec = {
      port: integer("PORT", { default: 1 }, { min: 1 }),
      level: oneOf("LEVEL", ["INFO"], { default: "INFO" }),
      jwks: mustBeUnset("JWKS", "identity provider keys are not implemented"),
      db: secret("DB", { required: true }),
    };
    try {
      readConfig({ PORT: "x", LEVEL: "debug", JWKS: "https://idp/keys" }, spec);
      throw new Error("expected a refusal");
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.map((p) => p.variable)).toEqual(["PORT", "LEVEL", "JWKS", "DB"]);
      expect((e as ConfigError).message).toContain(
        "JWKS must be unset: identity provider keys are not implemented",
      );
    }
  });
  test("cross-variable checks run once every variable reads", () => {
    const spec = { a: text("A", { required: true }), b: text("B", { required: true }) };
    const check = (c: { a: string; b: string }) =>
      c.a === c.b ? [{ variable: "B", message: "B must differ from A" }] : [];
    expect(refusal(() => readConfig({ A: "x", B: "x" }, spec, check))).toEqual(["B must differ from A"]);
    expect(readConfig({ A: "x", B: "y" }, spec, check)).toEqual({ a: "x", b: "y" });
  });
});
