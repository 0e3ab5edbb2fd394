import { describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { Elysia, t } from "elysia";
import { ConflictError, PayloadTooLargeError } from "../errors/svc-error.ts";
import { createLogger } from "../log/logger.ts";
import { metricsRoute } from "../metrics/metrics-route.ts";
import { createRegistry } from "../metrics/registry.ts";
import { createApp } from "./create-app.ts";

function quietLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _e, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ service: "svc-test", level: "INFO", destination }) };
}

function build(style: "problem" | "plain" = "problem") {
  const { lines, logger } = quietLogger();
  const app = createApp({ service: "svc-test", logger, errorStyle: style }).use(
    new Elysia()
      .get("/ok", () => ({ ok: true }))
      .post("/items", ({ body }) => body, {
        body: t.Object({ name: t.String({ maxLength: 3 }), n: t.Integer() }),
      })
      .get("/items/:id", ({ params }) => ({ id: params.id }))
      .get("/conflict", () => {
        throw new ConflictError("already registered");
      })
      .get("/boom", () => {
        throw new Error("postgres://svc:hunter2@db failed");
      }),
  );
  return { app, lines };
}

const call = (app: { handle(request: Request): Promise<Response> }, path: string, init?: RequestInit) =>
  app.handle(new Request(`http://localhost${path}`, init));

describe("createApp", () => {
  test("generates a request id, or adopts the caller's", async () => {
    const { app } = build();
    const generated = await call(app, "/ok");
    expect(generated.status).toBe(200);
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const adopted = await call(app, "/ok", { headers: { "x-request-id": "abc-123" } });
    expect(adopted.headers.get("x-request-id")).toBe("abc-123");
    const refused = await call(app, "/ok", { headers: { "x-request-id": "has space" } });
    expect(refused.headers.get("x-request-id")).not.toBe("has space");
  });

  test("unknown path: 404 problem with the request id", async () => {
    const { app } = build();
    const res = await call(app, "/nope", { headers: { "x-request-id": "r-404" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("x-request-id")).toBe("r-404");
    expect(await res.json()).toMatchObject({
      type: "urn:svc:error:not_found",
      status: 404,
      title: "Not found",
    });
  });

  test("known path, wrong method: 405 problem with Allow", async () => {
    const { app } = build();
    const res = await call(app, "/items/7", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await res.json()).toMatchObject({ type: "urn:svc:error:method_not_allowed", status: 405 });
  });

  test("contract violations: 400 with every field error located", async () => {
    const { app } = build();
    const res = await call(app, "/items", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "toolong", n: 1.5 }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; errors: { loc: string; msg: string }[] };
    expect(body.type).toBe("urn:svc:error:validation");
    expect(body.errors.map((e) => e.loc).sort()).toEqual(["body.n", "body.name"]);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test("Elysia's own validation names the member and what it accepts (decision 17)", async () => {
    const { app } = build();
    const res = await call(app, "/items", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "toolong", n: 1.5 }),
    });
    const body = (await res.json()) as { errors: { loc: string; msg: string }[] };
    expect(body.errors.sort((a, b) => (a.loc < b.loc ? -1 : 1))).toEqual([
      { loc: "body.n", msg: "must be an integer" },
      { loc: "body.name", msg: "must be a string of at most 3 characters" },
    ]);
  });

  test("an unparseable body is 400", async () => {
    const { app } = build();
    const res = await call(app, "/items", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect((await res.json()) as object).toMatchObject({ type: "urn:svc:error:validation" });
  });

  test("a parse hook's own refusal keeps its status and message", async () => {
    const { logger } = quietLogger();
    const app = createApp({ service: "svc-test", logger, errorStyle: "plain" })
      .onParse({ as: "global" }, () => {
        throw new PayloadTooLargeError("a body holds at most 10 bytes");
      })
      .post("/items", ({ body }) => body);
    const res = await call(app, "/items", { method: "POST", body: "{}" });
    expect([res.status, await res.json()]).toEqual([413, { error: "a body holds at most 10 bytes" }]);
  });

  test("domain errors map through the one code list", async () => {
    const { app } = build();
    const res = await call(app, "/conflict");
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      type: "urn:svc:error:conflict",
      title: "Conflicts with the stored state",
      status: 409,
      detail: "already registered",
    });
  });

  test("an unexpected failure is 500 internal, and neither the answer nor the log holds the secret", async () => {
    const { app, lines } = build();
    const res = await call(app, "/boom", { headers: { "x-request-id": "r-500" } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ type: "urn:svc:error:internal", status: 500 });
    expect(text).not.toContain("hunter2");
    expect(lines.join("\n")).toContain("r-500");
    expect(lines.join("\n")).not.toContain("hunter2");
  });

  test("plain style answers {error: message}", async () => {
    const { app } = build("plain");
    const missing = await call(app, "/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "not found" });
    const conflict = await call(app, "/conflict");
    expect(await conflict.json()).toEqual({ error: "already registered" });
    expect(conflict.headers.get("x-request-id")).toBeTruthy();
  });

  test("an access-log line per request", async () => {
    const { app, lines } = build();
    await call(app, "/ok", { headers: { "x-request-id": "r-log" } });
    await Bun.sleep(5);
    await call(app, "/conflict", { headers: { "x-request-id": "r-log-409" } });
    await Bun.sleep(5);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.find((l) => l.request_id === "r-log")).toMatchObject({
      msg: "request",
      method: "GET",
      path: "/ok",
      status: 200,
      service: "svc-test",
    });
    expect(parsed.find((l) => l.request_id === "r-log-409")).toMatchObject({ status: 409 });
  });
});

describe("metrics route", () => {
  test("serves the registry with runtime and process collectors, scraped under Bun", async () => {
    const registry = createRegistry();
    const { logger } = quietLogger();
    const app = createApp({ service: "svc-test", logger }).use(metricsRoute(registry, true));
    const res = await call(app, "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).toContain("nodejs_heap_size_total_bytes");
  });

  test("switched off: 404, while instruments keep counting", async () => {
    const registry = createRegistry();
    const { Counter } = await import("prom-client");
    const counter = new Counter({ name: "svc_test_total", help: "test", registers: [registry] });
    const { logger } = quietLogger();
    const app = createApp({ service: "svc-test", logger }).use(metricsRoute(registry, false));
    counter.inc();
    const res = await call(app, "/metrics");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await registry.getSingleMetricAsString("svc_test_total")).toContain("svc_test_total 1");
  });
});
