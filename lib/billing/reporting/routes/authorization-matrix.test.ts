import { beforeAll, describe, expect, test } from "bun:test";
import {
  apiToken,
  call,
  reportingTestFile,
  testInternalToken,
} from "../../../../harness/reporting/reporting-test-app.ts";
import { issueIngestCredential } from "../auth/credential-store.ts";
import type { Role } from "../auth/roles.ts";
import { reportingOperations } from "../contract/reporting-contract.ts";

/**
 * Every operation of the served contract x every kind of caller: no credential, a credential of each
 * other scheme, an API token one role too low, a token scoped away from the project asked for, and the
 * right credential. The operations come from the contract itself, so a new route without a row here
 * fails the test.
 */
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};

const t = reportingTestFile({ keepRows: true });

beforeAll(async () => {
  tokens.admin = await apiToken(t.db, "admin");
  tokens.ingest = (
    await issueIngestCredential(t.db.db, { platform: "platform_a", cloud: "c1", actor: "t" })
  ).secret;
  tokens.internal = testInternalToken;
  for (const name of ["mine", "other", "target", "target2"]) {
    const out = await call(t.app, "POST", "/api/v1/projects", {
      token: tokens.admin,
      body: { platform: "platform_a", cloud: "c1", external_id: name },
    });
    ids[name] = (out.json as { id: string }).id;
  }
  const relation = await call(t.app, "POST", `/api/v1/projects/${ids.mine}/relations`, {
    token: tokens.admin,
    body: { target_id: ids.target, relation_type: "infrastructure_tenant" },
  });
  ids.relation = (relation.json as { id: string }).id;
  await call(t.app, "POST", "/api/v1/events", {
    token: tokens.ingest,
    body: {
      event_id: "e1",
      timestamp: "2026-11-01T00:00:00Z",
      event_type: "volume.create.end",
      platform: "platform_a",
      cloud: "c1",
      resource_type: "volume",
      resource_id: "v1",
      project_id: "mine",
      payload: { state: "available", size: { size_gb: 1, type: "t" } },
    },
  });
  for (const role of ["reader", "read_all"] as const) {
    tokens[role] = await apiToken(t.db, role);
    tokens[`${role}-scoped`] = await apiToken(t.db, role, [ids.other ?? ""]);
  }
});

interface Example {
  path: () => string;
  body?: () => unknown;
  /** The answer of a token scoped away from the project the request names (none: not project-bound). */
  outOfScope?: number;
  ok: number;
}

const window = "from=2026-10-01T00:00:00Z&to=2026-12-01T00:00:00Z";
let created = 0;

const examples: Record<string, Example> = {
  liveness: { path: () => "/healthz", ok: 200 },
  readiness: { path: () => "/readyz", ok: 200 },
  metrics: { path: () => "/metrics", ok: 200 },
  listEvents: { path: () => "/api/v1/events?cloud=c1&project_id=mine", outOfScope: 403, ok: 200 },
  ingestEvents: { path: () => "/api/v1/events", body: () => [], ok: 200 },
  listRejectedEvents: { path: () => "/api/v1/rejected-events", ok: 200 },
  listResources: { path: () => "/api/v1/resources?project_id=mine", outOfScope: 403, ok: 200 },
  resourceHistory: {
    path: () => "/api/v1/resources/history?cloud=c1&resource_type=volume&resource_id=v1",
    outOfScope: 404,
    ok: 200,
  },
  listResourceTypes: { path: () => "/api/v1/resource-types", ok: 200 },
  resourceStats: { path: () => "/api/v1/stats/resources?group_by=cloud,resource_type", ok: 200 },
  eventStats: { path: () => `/api/v1/stats/events?group_by=cloud,event_type&interval=1d&${window}`, ok: 200 },
  listProjects: { path: () => "/api/v1/projects", ok: 200 },
  createProject: {
    path: () => "/api/v1/projects",
    body: () => ({ platform: "platform_a", cloud: "c1", external_id: `new-${created++}` }),
    ok: 201,
  },
  getProject: { path: () => `/api/v1/projects/${ids.mine}`, outOfScope: 404, ok: 200 },
  projectSummary: { path: () => `/api/v1/projects/${ids.mine}/summary?${window}`, outOfScope: 404, ok: 200 },
  listRelations: { path: () => `/api/v1/projects/${ids.mine}/relations`, outOfScope: 404, ok: 200 },
  createRelation: {
    path: () => `/api/v1/projects/${ids.target2}/relations`,
    body: () => ({ target_id: ids.mine, relation_type: `kind_${created++}` }),
    ok: 201,
  },
  updateRelation: {
    path: () => `/api/v1/projects/${ids.mine}/relations/${ids.relation}`,
    body: () => ({ metadata: {} }),
    ok: 200,
  },
  rebuildProjection: { path: () => "/internal/projection/rebuild", body: () => ({}), ok: 200 },
  // The test app names no cloud: the right credential reaches the handler, which answers 404.
  syncCloud: { path: () => "/internal/sync/nowhere", body: () => ({}), ok: 404 },
};

const below: Record<Role, Role | null> = { reader: null, read_all: "reader", admin: "read_all" };

describe("the authorization matrix", () => {
  test("every operation of the contract has an example", () => {
    expect(
      reportingOperations.map((op) => op.operationId).filter((id) => examples[id] === undefined),
    ).toEqual([]);
  });

  for (const op of reportingOperations) {
    test(`${op.method} ${op.path}`, async () => {
      const example = examples[op.operationId];
      if (example === undefined) throw new Error(`no example for ${op.operationId}`);
      const send = (token?: string) =>
        call(t.app, op.method, example.path(), {
          ...(token === undefined ? {} : { token }),
          ...(example.body === undefined ? {} : { body: example.body() }),
        });
      const seen: Record<string, number> = {};
      const want: Record<string, number> = {};
      if (op.security === "none") {
        seen.none = (await send()).status;
        want.none = example.ok;
      } else {
        seen.none = (await send()).status;
        want.none = 401;
        for (const scheme of ["api", "ingest", "internal"] as const) {
          if (scheme === op.security) continue;
          seen[scheme] = (await send(scheme === "api" ? tokens.admin : tokens[scheme])).status;
          want[scheme] = 401;
        }
        if (op.security === "api") {
          const role = op.role ?? "reader";
          const lower = below[role];
          if (lower !== null) {
            seen[`role ${lower}`] = (await send(tokens[lower])).status;
            want[`role ${lower}`] = 403;
          }
          if (example.outOfScope !== undefined && role !== "admin") {
            seen["out of scope"] = (await send(tokens[`${role}-scoped`])).status;
            want["out of scope"] = example.outOfScope;
          }
        }
        const right =
          op.security === "api"
            ? tokens[op.role === "admin" ? "admin" : (op.role ?? "reader")]
            : tokens[op.security];
        seen.right = (await send(right)).status;
        want.right = example.ok;
      }
      expect(seen).toEqual(want);
    });
  }
});
