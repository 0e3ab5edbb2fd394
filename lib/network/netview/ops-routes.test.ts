// Who may change netview's own state (decision 362): reads are open; a rule change, a silence or a
// snapshot taken, imported, deleted, loaded or unloaded is refused 403 on a server without a token
// and 401 without the token on a server with one, with nothing changed; with it, it is done and the
// silence names the caller.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  startTestClusters,
  testApp,
  testAuthHeaders,
  testOpsOptions,
} from "../../../harness/netview/test-support.ts";
import { services } from "../../../harness/test-services.ts";
import type { ClusterSet } from "./cluster.ts";
import type { netviewApp } from "./netview-app.ts";
import { buildOps, type NetviewOps } from "./netview-ops.ts";

let clusters: ClusterSet;
let withToken: NetviewOps;
let withoutToken: NetviewOps;
let app: ReturnType<typeof netviewApp>;
let tokenless: ReturnType<typeof netviewApp>;

const changes: [string, string, unknown][] = [
  ["PUT", "/api/v1/alerts/rules/ports_unbound", { severity: "info" }],
  [
    "POST",
    "/api/v1/alerts/silences",
    { matchers: { rule: "chassis_down" }, comment: "maintenance", duration: "1h" },
  ],
  ["DELETE", "/api/v1/alerts/silences/x", undefined],
  ["POST", "/api/v1/snapshots", {}],
  ["POST", "/api/v1/snapshots/import", {}],
  ["DELETE", "/api/v1/snapshots/x", undefined],
  ["POST", "/api/v1/snapshots/x/load", undefined],
  ["POST", "/api/v1/snapshots/x/unload", undefined],
];

const reads = [
  "/api/v1/alerts",
  "/api/v1/alerts/rules",
  "/api/v1/alerts/silences",
  "/api/v1/snapshots",
  "/api/v1/events",
  "/api/v1/telemetry/summary",
];

async function call(
  on: ReturnType<typeof netviewApp>,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await on.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text === "" ? null : JSON.parse(text)) as unknown,
  };
}

const unchanged = async (on: ReturnType<typeof netviewApp>) => {
  expect((await call(on, "GET", "/api/v1/alerts/silences", undefined)).body).toEqual([]);
  expect((await call(on, "GET", "/api/v1/snapshots", undefined)).body).toEqual([]);
  const rules = (await call(on, "GET", "/api/v1/alerts/rules", undefined)).body as {
    name: string;
    overridden: string[];
  }[];
  expect(rules.every((r) => r.overridden.length === 0)).toBe(true);
};

beforeAll(async () => {
  const ovn = await services.ovn();
  clusters = await startTestClusters(ovn);
  withToken = buildOps({ options: testOpsOptions(ovn), clusters });
  withoutToken = buildOps({ options: testOpsOptions(ovn, { writeToken: undefined }), clusters });
  app = testApp({ clusters, ops: withToken });
  tokenless = testApp({ clusters, ops: withoutToken });
}, 60_000);

afterAll(() => {
  withToken?.stop();
  withoutToken?.stop();
  clusters?.stop();
});

describe("changes to netview's state", () => {
  test("a server without a token refuses every change 403, naming the flag; reads are open", async () => {
    for (const [method, path, body] of changes) {
      const res = await call(tokenless, method, path, body, testAuthHeaders);
      expect([method, path, res.status, res.body]).toEqual([
        method,
        path,
        403,
        { error: "changes are disabled: the server runs without --write-token-file (reads need no token)" },
      ]);
    }
    for (const path of reads)
      expect([path, (await call(tokenless, "GET", path, undefined)).status]).toEqual([path, 200]);
    await unchanged(tokenless);
    const caps = (await call(tokenless, "GET", "/api/v1/capabilities", undefined)).body as {
      capabilities: string[];
    };
    expect(caps.capabilities).not.toContain("changes");
  });

  test("with a token: none or another is 401 with a Bearer challenge, and nothing changes", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${"x".repeat(40)}` },
      { authorization: "Basic abc" },
    ];
    for (const headers of attempts) {
      for (const [method, path, body] of changes) {
        const res = await call(app, method, path, body, headers);
        expect([method, path, res.status]).toEqual([method, path, 401]);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="netview-write"');
      }
    }
    for (const path of reads)
      expect([path, (await call(app, "GET", path, undefined)).status]).toEqual([path, 200]);
    await unchanged(app);
    const caps = (await call(app, "GET", "/api/v1/capabilities", undefined)).body as {
      capabilities: string[];
    };
    expect(caps.capabilities).toContain("changes");
  });

  test("with the token every change is done; a silence names the caller unless it names someone", async () => {
    const [rule, silence, , snapshot] = await Promise.all(
      changes.slice(0, 4).map(([method, path, body]) => call(app, method, path, body, testAuthHeaders)),
    );
    expect(rule?.status).toBe(200);
    expect(silence).toMatchObject({ status: 201, body: { created_by: "alice@ops", state: "active" } });
    expect(snapshot?.status).toBe(201);
    const id = (snapshot?.body as { id: string } | undefined)?.id;
    expect((await call(app, "POST", `/api/v1/snapshots/${id}/load`, undefined, testAuthHeaders)).status).toBe(
      200,
    );
    expect(
      (await call(app, "POST", `/api/v1/snapshots/${id}/unload`, undefined, testAuthHeaders)).status,
    ).toBe(200);
    expect((await call(app, "DELETE", `/api/v1/snapshots/${id}`, undefined, testAuthHeaders)).status).toBe(
      204,
    );
    const named = await call(
      app,
      "POST",
      "/api/v1/alerts/silences",
      { matchers: { rule: "chassis_lagging" }, comment: "for bob", created_by: "bob", duration: "1h" },
      testAuthHeaders,
    );
    expect(named.body).toMatchObject({ created_by: "bob" });
    const silenceId = (silence?.body as { id: string } | undefined)?.id;
    expect(
      (await call(app, "DELETE", `/api/v1/alerts/silences/${silenceId}`, undefined, testAuthHeaders)).status,
    ).toBe(204);
  });
});
