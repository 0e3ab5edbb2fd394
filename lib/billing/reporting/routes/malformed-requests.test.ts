import { beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { apiToken, call, reportingTestFile } from "../../../../harness/reporting/reporting-test-app.ts";
import { reportingOperations } from "../contract/reporting-contract.ts";

/**
 * Bad input never answers 5xx: thousands of malformed requests over every API-token route (bad ids,
 * bad dates, unknown members, huge values, wrong types, broken encodings), each answered within the
 * contract (call() checks status, content type and body against the served document).
 */
let admin: string;
let project: string;

const t = reportingTestFile({ keepRows: true });

beforeAll(async () => {
  admin = await apiToken(t.db, "admin");
  const out = await call(t.app, "POST", "/api/v1/projects", {
    token: admin,
    body: { platform: "platform_a", cloud: "c1", external_id: "p1" },
  });
  project = (out.json as { id: string }).id;
});

const apiOps = reportingOperations.filter((op) => op.security === "api");

const badText = fc.oneof(
  fc.string(),
  // U+0000, which PostgreSQL cannot hold, anywhere in a value.
  fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([a, b]) => `${a}\u0000${b}`),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1.5",
    "1e309",
    "9".repeat(400),
    "NaN",
    "null",
    "true",
    "2026-13-45T99:99:99Z",
    "2026-02-30T00:00:00Z",
    "0000-00-00T00:00:00Z",
    "2026-11-01",
    "%zz",
    "%00",
    "\u0000",
    "../..",
    "{}",
    "[]",
    "x".repeat(5000),
    "00000000-0000-4000-8000-000000000000",
    "cloud,resource_type,cloud",
    "1h",
    "1w",
  ),
);

const badJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.constantFrom(
      "platform",
      "cloud",
      "external_id",
      "name",
      "metadata",
      "target_id",
      "relation_type",
      "valid_from",
      "valid_to",
      "extra",
    ),
    fc.oneof(
      badText,
      fc.jsonValue({ maxDepth: 3 }),
      fc.constant({ pricing_adjustments: [{ type: "discount", rate: 2 }] }),
    ),
  ),
  fc.constant("x".repeat(100_000)),
);

const request = fc.record({
  op: fc.constantFrom(...apiOps),
  params: fc.array(fc.oneof(badText, fc.constant("valid")), { minLength: 2, maxLength: 2 }),
  query: fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          "limit",
          "cursor",
          "from",
          "to",
          "cloud",
          "project_id",
          "status",
          "state",
          "group_by",
          "interval",
          "at",
          "source",
          "direction",
        ),
        badText,
      ),
      badText,
    ),
    { maxLength: 4 },
  ),
  body: badJson,
  rawBody: fc.option(fc.constantFrom("{", "[1,", "\u0000", "null", '{"a":1}{"b":2}'), { nil: undefined }),
});

test("2,000 malformed requests across the API routes: never a 5xx, always within the contract", async () => {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(request, async ({ op, params, query, body, rawBody }) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => {
        const p = params[i++] ?? "valid";
        return p === "valid" ? project : encodeURIComponent(p);
      });
      const qs = query
        .map(([k, v]) => `${encodeURIComponent(k)}=${v === "%zz" ? v : encodeURIComponent(v)}`)
        .join("&");
      const out = await call(t.app, op.method, qs === "" ? path : `${path}?${qs}`, {
        token: admin,
        ...(op.method === "GET" ? {} : rawBody === undefined ? { body } : { raw: rawBody }),
      });
      statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1);
      expect(out.status).toBeLessThan(500);
    }),
    { numRuns: 2000 },
  );
  // The requests reached the checks they were meant for, not only the router's 404.
  expect(statuses.get(400) ?? 0).toBeGreaterThan(1000);
});
