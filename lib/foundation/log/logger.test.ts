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
