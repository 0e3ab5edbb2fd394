import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  type ReportingTestDatabase,
  reportingTestDatabase,
} from "../../../harness/reporting/reporting-database.ts";
import { apiToken, buildTestApp } from "../../../harness/reporting/reporting-test-app.ts";
import { createLogger } from "../../foundation/log/logger.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { generateTenants } from "./generate-month.ts";
import { RegistrationError, registerProjects } from "./register-projects.ts";

// A real Reporting API on a real port, over a test database: the simulator talks HTTP to it.
let db: ReportingTestDatabase;
let server: ReturnType<typeof buildTestApp>["app"];
let base: URL;
let admin: string;
const logger = createLogger({ service: "svc-simulator-test", level: "ERROR" });

beforeAll(async () => {
  db = await reportingTestDatabase();
  server = buildTestApp(db).app;
  server.listen({ hostname: "127.0.0.1", port: 0 });
  base = new URL(`http://127.0.0.1:${server.server?.port}`);
});

afterAll(async () => {
  await server.stop(true);
  await db.dispose();
});

beforeEach(async () => {
  await db.reset();
  admin = await apiToken(db, "admin");
});

function register(options: {
  period?: string;
  seed?: number;
  cloud?: string;
  garden?: string;
  token?: string;
}) {
  const period = parsePeriod(options.period ?? "2026-10");
  const cloud = options.cloud ?? "cloud-1";
  return registerProjects({
    reportingUrl: base,
    apiToken: options.token ?? admin,
    cloud,
    gardenCloud: options.garden ?? "garden-1",
    period,
    tenants: generateTenants({ seed: options.seed ?? 1, period, cloud, scale: { tenants: 3 } }),
    logger,
  });
}

async function rows() {
  const projects = await db.sql`select platform, cloud, external_id, name, metadata from projects
    order by cloud, external_id`;
  const relations = await db.sql`select s.external_id as source, t.external_id as target, r.relation_type,
      r.metadata, r.valid_from::text, r.valid_to from project_relations r
    join projects s on s.id = r.source_id join projects t on t.id = r.target_id order by s.external_id`;
  return { projects: [...projects], relations: [...relations] };
}

describe("project registration", () => {
  test("tenants under the cloud, alpha and beta under the garden cloud, one relation each from the month's start", async () => {
    const report = await register({});
    expect(report).toEqual({
      projects_created: 7,
      projects_found: 0,
      relations_created: 2,
      relations_found: 0,
    });
    const tenants = generateTenants({
      seed: 1,
      period: parsePeriod("2026-10"),
      cloud: "cloud-1",
      scale: { tenants: 3 },
    });
    const { projects, relations } = await rows();
    expect(projects).toHaveLength(7);
    expect(projects.filter((p) => p.cloud === "garden-1")).toEqual([
      {
        platform: "gardener",
        cloud: "garden-1",
        external_id: "alpha",
        name: "alpha",
        metadata: { created_by: "svc-simulator" },
      },
      {
        platform: "gardener",
        cloud: "garden-1",
        external_id: "beta",
        name: "beta",
        metadata: { created_by: "svc-simulator" },
      },
    ]);
    for (const tenant of tenants) {
      expect(projects).toContainEqual({
        platform: "platform_a",
        cloud: "cloud-1",
        external_id: tenant.project_id,
        name: tenant.name,
        metadata: { created_by: "svc-simulator" },
      });
    }
    const infra = (manager: string) => tenants.find((t) => t.cluster_manager === manager)?.project_id;
    expect(relations).toEqual(
      ["alpha", "beta"].map((manager) => ({
        source: manager,
        target: infra(manager),
        relation_type: "infrastructure_tenant",
        metadata: { created_by: "svc-simulator" },
        valid_from: "2026-10-01 00:00:00+00",
        valid_to: null,
      })),
    );
  });

  test("a rerun of the same month posts nothing new", async () => {
    await register({});
    const before = await rows();
    const [audits] = await db.sql`select count(*)::int as n from audit_log`;
    expect(await register({})).toEqual({
      projects_created: 0,
      projects_found: 7,
      relations_created: 0,
      relations_found: 2,
    });
    expect(await rows()).toEqual(before);
    const [after] = await db.sql`select count(*)::int as n from audit_log`;
    expect(after?.n).toBe(audits?.n);
  });

  test("another period under the same garden cloud is refused at the first relation, naming how to end the earlier one", async () => {
    await register({ period: "2026-09" });
    const error = await register({ period: "2026-10" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistrationError);
    const message = (error as Error).message;
    expect(message).toContain("cluster-manager project alpha of garden cloud garden-1");
    expect(message).toContain("an earlier month's");
    expect(message).toMatch(
      /PATCH \/api\/v1\/projects\/[0-9a-f-]+\/relations\/[0-9a-f-]+ \{"valid_to": "2026-10-01T00:00:00.000Z"\}/,
    );
    // Following the advice lets the rerun through.
    for (const manager of ["alpha", "beta"]) {
      const [relation] = await db.sql`select r.id::text, r.source_id::text from project_relations r
        join projects s on s.id = r.source_id where s.external_id = ${manager}`;
      const response = await fetch(
        new URL(`/api/v1/projects/${relation?.source_id}/relations/${relation?.id}`, base),
        {
          method: "PATCH",
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          body: JSON.stringify({ valid_to: "2026-10-01T00:00:00.000Z" }),
        },
      );
      expect(response.status).toBe(200);
    }
    expect((await register({ period: "2026-10" })).relations_created).toBe(2);
  });

  test("another cloud of the same month under the same garden cloud is refused too", async () => {
    await register({ cloud: "cloud-1" });
    const error = await register({ cloud: "cloud-2" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistrationError);
    expect((error as Error).message).toContain("cannot register 2026-10 of cloud cloud-2");
  });

  test("a month before one already registered is refused with the advice of another garden cloud", async () => {
    await register({ period: "2026-10" });
    const error = await register({ period: "2026-09", seed: 2 }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      "starting at or after this month's start: register this month under another garden cloud (SVC_SIM_GARDEN_CLOUD)",
    );
    expect((await register({ period: "2026-09", seed: 2, garden: "garden-2" })).relations_created).toBe(2);
  });
});

describe("registration refusals", () => {
  test("a token below admin is refused, saying what the token must be", async () => {
    const reader = await apiToken(db, "read_all");
    const error = await register({ token: reader }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /answered 403: .*SVC_SIM_API_TOKEN must be an API token of role admin/,
    );
  });

  test("an API that cannot be reached is named without its token", async () => {
    const unreachable = await registerProjects({
      reportingUrl: new URL("http://127.0.0.1:9"),
      apiToken: "s3cret",
      cloud: "c",
      gardenCloud: "g",
      period: parsePeriod("2026-10"),
      tenants: generateTenants({
        seed: 1,
        period: parsePeriod("2026-10"),
        cloud: "c",
        scale: { tenants: 1 },
      }),
      logger,
    }).catch((e: unknown) => e);
    expect((unreachable as Error).message).toContain(
      "cannot reach the Reporting API at SVC_SIM_REPORTING_URL",
    );
    expect((unreachable as Error).message).not.toContain("s3cret");
  });
});
