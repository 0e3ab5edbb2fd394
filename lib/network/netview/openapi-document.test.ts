// Issue 30 item 4: netview's served OpenAPI document, with every route on (operations, writes, the
// chassis switches), is valid OpenAPI 3.1 by the official schema (npm's openapi-schema-validator);
// every operation documents its answers; every query parameter a route takes is in the document
// (and one it does not list is refused); the write token is a security scheme, declared by exactly
// the operations that ask for it.
import { describe, expect, test } from "bun:test";
import { openApiProblems } from "../../../harness/http/openapi-problems.ts";
import { startFullFixture } from "../../../harness/netview/full-fixture.ts";
import { fixtureForFile } from "../../../harness/netview/test-support.ts";
import { writeTokenScheme } from "./openapi-document.ts";

const fx = fixtureForFile(startFullFixture);

type Operation = {
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown> }[];
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>;
  security?: Record<string, string[]>[];
};

const operations = () =>
  Object.entries(fx().document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      op: op as Operation,
    })),
  );

/** A path of the template, every path parameter filled with something. */
const pathOf = (template: string) => template.replace("{cluster}", "default").replace(/\{[^}]+\}/g, "x");

/** A value the parameter's schema takes. */
function example(schema: Record<string, unknown> = {}): string {
  const inner = (schema.type === "array" ? schema.items : schema) as Record<string, unknown>;
  if (Array.isArray(inner.enum)) return String(inner.enum[0]);
  if (inner.default !== undefined) return String(inner.default);
  if (inner.type === "integer") return String(inner.minimum ?? 1);
  if (inner.type === "boolean") return "true";
  if (inner.format === "date-time") return "2026-11-28T00:00:00Z";
  return "x";
}

describe("the document", () => {
  test("is valid OpenAPI 3.1, its WebSocket route a GET answering 101", async () => {
    expect(fx().document.openapi).toBe("3.1.0");
    expect(await openApiProblems(fx().document)).toEqual([]);
    expect(operations().length).toBeGreaterThan(330);
    const ws = fx().document.paths["/api/v1/ws"] as Record<string, Operation>;
    expect(Object.keys(ws)).toEqual(["get"]);
    expect(Object.keys(ws.get?.responses ?? {})).toContain("101");
  });

  test("says what an error looks like in text Swagger UI shows whole", () => {
    const info = fx().document.info as { description: string };
    expect(info.description).toContain('`{"error": "<message>"}`');
    expect(info.description).toContain("`X-Netview-Stale: true`");
  });

  test("every operation documents its answers: a success, each with a description, errors as {error}", () => {
    const problems: string[] = [];
    for (const { method, template, op } of operations()) {
      const statuses = Object.keys(op.responses ?? {});
      if (!statuses.some((s) => s === "101" || s.startsWith("2")))
        problems.push(`${method} ${template}: no success`);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!response.description) problems.push(`${method} ${template} ${status}: no description`);
        if (Number(status) >= 400 && response.content?.["application/json"] === undefined)
          problems.push(`${method} ${template} ${status}: no error body`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("query parameters", () => {
  test("one a route does not list is refused with 400 naming it, on every route", async () => {
    const problems: string[] = [];
    for (const { method, template } of operations()) {
      if (template === "/api/v1/ws") continue; // below, over a real socket
      const answer = await fx().send(method, `${pathOf(template)}?not_a_parameter=1`);
      const error = String((answer.body as { error?: unknown } | undefined)?.error);
      if (answer.status !== 400 || !error.includes("not_a_parameter: unknown parameter"))
        problems.push(`${method} ${template}: ${answer.status} ${error}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("each one a route lists is taken (never refused as unknown), on every route", async () => {
    const problems: string[] = [];
    let listed = 0;
    for (const { method, template, op } of operations()) {
      if (template === "/api/v1/ws") continue;
      for (const parameter of (op.parameters ?? []).filter((p) => p.in === "query")) {
        listed++;
        const query = `${parameter.name}=${encodeURIComponent(example(parameter.schema))}`;
        // Without the token: a changing route refuses before it does anything.
        const answer = await fx().send(method, `${pathOf(template)}?${query}`, { auth: null });
        const error = String((answer.body as { error?: unknown } | undefined)?.error);
        if (error.includes(`${parameter.name}: unknown parameter`))
          problems.push(`${method} ${template}: ${query}`);
      }
    }
    expect(problems).toEqual([]);
    expect(listed).toBeGreaterThan(120);
  }, 120_000);

  test("the WebSocket route takes what it lists and refuses another", async () => {
    const server = fx().app.listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const base = `ws://127.0.0.1:${server.server?.port}/api/v1/ws`;
      const opened = (url: string) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(url);
          socket.onmessage = (m) => {
            resolve(JSON.parse(String(m.data)).type);
            socket.close();
          };
          socket.onerror = () => resolve("refused");
        });
      expect(await opened(`${base}?table=Logical_Switch&since=0`)).toBe("hello");
      expect(await opened(`${base}?not_a_parameter=1`)).toBe("refused");
    } finally {
      await fx().app.stop();
    }
  });
});

describe("the write token", () => {
  test("is a bearer security scheme, declared by exactly the operations that answer 401 without it", async () => {
    const schemes = (fx().document.components as { securitySchemes: Record<string, unknown> })
      .securitySchemes;
    expect(schemes[writeTokenScheme]).toMatchObject({ type: "http", scheme: "bearer" });
    const problems: string[] = [];
    let secured = 0;
    for (const { method, template, op } of operations()) {
      if (template === "/api/v1/ws") continue;
      const declares = (op.security ?? []).some((s) => s[writeTokenScheme] !== undefined);
      if (declares) secured++;
      const answer = await fx().send(method, pathOf(template), {
        auth: null,
        ...(method === "GET" ? {} : { body: {} }),
      });
      if ((answer.status === 401) !== declares)
        problems.push(`${method} ${template}: ${answer.status}, declares ${declares}`);
      if (method !== "GET" && !declares) problems.push(`${method} ${template}: changes without the token`);
    }
    expect(problems).toEqual([]);
    expect(secured).toBe(20);
  }, 120_000);
});
