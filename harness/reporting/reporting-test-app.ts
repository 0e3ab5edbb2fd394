import { afterAll, beforeAll, beforeEach } from "bun:test";
import { Writable } from "node:stream";
import { Authenticator, type AuthMode } from "../../lib/billing/reporting/auth/authenticator.ts";
import { issueApiToken } from "../../lib/billing/reporting/auth/credential-store.ts";
import type { Role } from "../../lib/billing/reporting/auth/roles.ts";
import type { Cloud } from "../../lib/billing/reporting/clouds/clouds-file.ts";
import { defaultSyncSettings, type SyncSettings } from "../../lib/billing/reporting/routes/sync-route.ts";
import { HealthMonitor } from "../../lib/billing/reporting/server/health-monitor.ts";
import { reportingApp } from "../../lib/billing/reporting/server/reporting-app.ts";
import { ReportingMetrics } from "../../lib/billing/reporting/server/reporting-metrics.ts";
import { Secret } from "../../lib/foundation/config/secret.ts";
import { createLogger } from "../../lib/foundation/log/logger.ts";
import { createRegistry } from "../../lib/foundation/metrics/registry.ts";
import { checkedResponse } from "./contract-fetch.ts";
import { type ReportingTestDatabase, reportingTestDatabase } from "./reporting-database.ts";

/** The internal token every test app is built with. */
export const testInternalToken = "internal-secret";

const quiet = new Writable({ write: (_c, _e, done) => done() });

export interface TestAppOptions {
  mode?: AuthMode;
  metricsEnabled?: boolean;
  requireSizeSchema?: boolean;
  attributingRelationTypes?: readonly string[];
  /** The clouds a sync may name (none: every sync is 404), as `loadClouds` reads them. */
  clouds?: ReadonlyMap<string, Cloud>;
  /** The sync settings; the server's defaults unless given. */
  sync?: Partial<SyncSettings>;
}

/** The reporting app over a test database, as `cmd/reporting.ts` wires it, with a silent log. */
export function buildTestApp(db: ReportingTestDatabase, options: TestAppOptions = {}) {
  const registry = createRegistry();
  const auth = new Authenticator({
    mode: options.mode ?? "enforced",
    sql: db.sql,
    internalToken: new Secret(testInternalToken),
  });
  const app = reportingApp({
    logger: createLogger({ service: "svc-reporting", level: "ERROR", destination: quiet }),
    sql: db.sql,
    partitions: db.partitions,
    auth,
    health: new HealthMonitor(
      async () => {
        await db.sql`select 1`;
      },
      { thresholdMs: 600_000 },
    ),
    registry,
    metrics: new ReportingMetrics(registry),
    metricsEnabled: options.metricsEnabled ?? true,
    requireSizeSchema: options.requireSizeSchema ?? false,
    attributingRelationTypes: options.attributingRelationTypes ?? ["infrastructure_tenant"],
    clouds: options.clouds ?? new Map(),
    sync: { ...defaultSyncSettings, ...options.sync },
  });
  return { app, auth };
}

export type TestApp = ReturnType<typeof buildTestApp>["app"];

export interface Called {
  status: number;
  type: string | null;
  requestId: string | null;
  location: string | null;
  json: unknown;
}

/**
 * One request through `app.handle`; the response is checked against the served contract (status
 * declared, content type, body schema) before the test sees it.
 */
export async function call(
  app: TestApp,
  method: string,
  path: string,
  init: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Called> {
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await checkedResponse(
    method,
    path,
    await app.handle(
      new Request(`http://localhost${path}`, { method, headers, ...(body === undefined ? {} : { body }) }),
    ),
  );
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    requestId: res.headers.get("x-request-id"),
    location: res.headers.get("location"),
    json: res.json,
  };
}

/** A fresh API token's secret. */
export async function apiToken(
  db: ReportingTestDatabase,
  role: Role,
  projectIds?: string[],
): Promise<string> {
  return (await issueApiToken(db.db, { role, actor: "test", ...(projectIds ? { projectIds } : {}) })).secret;
}

interface TestFile<R extends Role> {
  readonly db: ReportingTestDatabase;
  readonly app: TestApp;
  /** A fresh API token of each role `tokens` names, issued for every test (a test's own reset drops them). */
  readonly tokens: Record<R, string>;
}

/**
 * One migrated database and app for a test file, made before its first test and dropped after its
 * last; every test starts from empty tables (the seeded size schemas stay) unless `keepRows` says the
 * file's tests share what its `beforeAll` stored, and with a token of each role in `tokens`.
 */
export function reportingTestFile<R extends Role = never>(
  options: TestAppOptions & { keepRows?: boolean; tokens?: readonly R[] } = {},
): TestFile<R> {
  const file = { tokens: {} } as { db: ReportingTestDatabase; app: TestApp; tokens: Record<R, string> };
  beforeAll(async () => {
    file.db = await reportingTestDatabase();
    file.app = buildTestApp(file.db, options).app;
  });
  afterAll(async () => {
    await file.db.dispose();
  });
  beforeEach(async () => {
    if (!options.keepRows) await file.db.reset();
    for (const role of options.tokens ?? []) file.tokens[role] = await apiToken(file.db, role);
  });
  return file;
}
