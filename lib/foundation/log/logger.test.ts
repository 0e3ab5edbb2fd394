import { describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { Secret } from "../config/secret.ts";
import type { LogLevel } from "./log-levels.ts";
import { createLogger } from "./logger.ts";
import { redact, redactUrlCredentials } from "./redact.ts";

function capture(level: LogLevel = "DEBUG") {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ service: "svc-test", level, destination }) };
}

describe("logger", () => {
  test("JSON lines with service, level name and ISO time", () => {
    const { lines, logger } = capture();
    logger.info({ port: 8080 }, "listening");
    expect(lines[0]).toMatchObject({ service: "svc-test", level: "info", msg: "listening", port: 8080 });
    expect(String(lines[0]?.time)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  test("the level filters", () => {
    const { lines, logger } = capture("WARN");
    logger.info("quiet");
    logger.warn("loud");
    logger.error("louder");
    expect(lines.map((l) => l.level)).toEqual(["warn", "error"]);
  });

  test("secrets never reach a line", () => {
    const { lines, logger } = capture();
    logger.info(
      {
        password: "p1",
        nested: { api_token: "p2", Connection_Info: { x: "p3" }, list: [{ clientSecret: "p4" }] },
        dsn: "postgres://svc:p5@db:5432/x",
        secret: new Secret("p6"),
      },
      "connecting to amqp://guest:p7@broker/",
    );
    logger.error(
      { err: new Error("cannot reach postgres://u:p8@h/db", { cause: { token: "p9" } }) },
      "failed",
    );
    const text = JSON.stringify(lines);
    for (const s of ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"])
      expect(text).not.toContain(`${s}"`);
    expect(text).not.toMatch(/:p\d@/);
    expect(lines[1]?.err).toMatchObject({ type: "Error", cause: { token: "[redacted]" } });
  });

  test("a secret the process read is masked whatever its shape, where a driver quotes it (decision 18)", () => {
    const { lines, logger } = capture();
    // A URL that does not parse, and a password holding the characters that end userinfo.
    new Secret("postgres//svc:Typo-Pw-17@db/reporting");
    new Secret("postgresql://svc:p%40ss/w0rd!@db:5432/x");
    new Secret("plain-token-value");
    const driverError = Object.assign(new TypeError("Invalid URL"), {
      input: "postgres//svc:Typo-Pw-17@db/reporting",
    });
    logger.fatal({ err: driverError }, "cannot start");
    logger.error(
      "auth failed for Typo-Pw-17, p@ss/w0rd! and plain-token-value at postgresql://svc:p%40ss/w0rd!@db:5432/x",
    );
    const text = JSON.stringify(lines);
    for (const leak of ["Typo-Pw-17", "p%40ss", "p@ss", "w0rd", "plain-token-value"])
      expect(text).not.toContain(leak);
    expect(lines[0]?.err).toMatchObject({ type: "TypeError", input: "[redacted]" });
  });
});

describe("redact", () => {
  test("url credentials", () => {
    expect(redactUrlCredentials("at postgresql://svc:s3cr3t@127.0.0.1:5432/db and https://h/x")).toBe(
      "at postgresql://svc:[redacted]@127.0.0.1:5432/db and https://h/x",
    );
  });
  test("cycles are cut", () => {
    const a: Record<string, unknown> = { name: "a" };
    a.self = a;
    expect(redact(a)).toEqual({ name: "a", self: "[circular]" });
  });
});
