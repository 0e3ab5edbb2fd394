import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProgram } from "../../../../harness/process/run-program.ts";
import { ConfigError } from "../../../foundation/config/config-error.ts";
import { readConfig } from "../../../foundation/config/read-config.ts";
import { checkReportingSettings, reportingSettings } from "./reporting-settings.ts";

const base = { SVC_REPORTING_DB_URL: "postgres://u:pw@db/reporting", SVC_REPORTING_INTERNAL_TOKEN: "s3cret" };
const read = (env: Record<string, string>) => readConfig(env, reportingSettings, checkReportingSettings);

function refusal(env: Record<string, string>): string[] {
  try {
    read(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => p.message);
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("reporting settings", () => {
  test("defaults", () => {
    const c = read(base);
    expect({
      logLevel: c.logLevel,
      httpPort: c.httpPort,
      dbMaxConns: c.dbMaxConns,
      authMode: c.authMode,
      unhealthyThresholdS: c.unhealthyThresholdS,
      requireSizeSchema: c.requireSizeSchema,
      attributingRelationTypes: c.attributingRelationTypes,
      syncAllowAt: c.syncAllowAt,
      syncBudgetS: c.syncBudgetS,
      syncSettleS: c.syncSettleS,
      metricsEnabled: c.metricsEnabled,
      metricsRefreshS: c.metricsRefreshS,
    }).toEqual({
      logLevel: "INFO",
      httpPort: 8080,
      dbMaxConns: 10,
      authMode: "enforced",
      unhealthyThresholdS: 600,
      requireSizeSchema: false,
      attributingRelationTypes: ["infrastructure_tenant"],
      syncAllowAt: false,
      syncBudgetS: 45,
      syncSettleS: 60,
      metricsEnabled: true,
      metricsRefreshS: 60,
    });
    expect(c.dbUrl.reveal()).toBe(base.SVC_REPORTING_DB_URL);
    expect(c.cloudsConfig).toBeUndefined();
  });

  test("accepted values", () => {
    const c = read({
      ...base,
      SVC_LOG_LEVEL: "DEBUG",
      SVC_REPORTING_HTTP_PORT: "9000",
      SVC_REPORTING_DB_MAX_CONNS: "3",
      SVC_INGEST_REQUIRE_SIZE_SCHEMA: "true",
      SVC_REPORTING_ATTRIBUTING_RELATION_TYPES: "",
      SVC_REPORTING_SYNC_BUDGET_S: "86400",
      SVC_REPORTING_SYNC_SETTLE_S: "0",
      SVC_METRICS_ENABLED: "false",
    });
    expect([c.logLevel, c.httpPort, c.dbMaxConns, c.requireSizeSchema, c.attributingRelationTypes]).toEqual([
      "DEBUG",
      9000,
      3,
      true,
      [],
    ]);
    expect([c.syncBudgetS, c.syncSettleS, c.metricsEnabled]).toEqual([86400, 0, false]);
    // Auth disabled needs no internal token.
    expect(
      read({ SVC_REPORTING_DB_URL: "postgres://db/x", SVC_REPORTING_AUTH_MODE: "disabled" }).authMode,
    ).toBe("disabled");
  });

  test("every refusal names its variable, all at once", () => {
    const messages = refusal({
      SVC_LOG_LEVEL: "info",
      SVC_REPORTING_HTTP_PORT: "http",
      SVC_REPORTING_DB_MAX_CONNS: "0",
      SVC_REPORTING_AUTH_MODE: "off",
      SVC_REPORTING_UNHEALTHY_THRESHOLD_S: "-1",
      SVC_REPORTING_OIDC_JWKS_URL: "https://idp/jwks",
      SVC_INGEST_REQUIRE_SIZE_SCHEMA: "maybe",
      SVC_REPORTING_ATTRIBUTING_RELATION_TYPES: "infrastructure_tenant,member_of",
      SVC_REPORTING_SYNC_ALLOW_AT: "2",
      SVC_REPORTING_SYNC_BUDGET_S: "86401",
      SVC_REPORTING_SYNC_SETTLE_S: "3601",
      SVC_METRICS_ENABLED: "nope",
      SVC_REPORTING_METRICS_REFRESH_S: "0",
    });
    const variables = [
      "SVC_LOG_LEVEL",
      "SVC_REPORTING_HTTP_PORT",
      "SVC_REPORTING_DB_URL",
      "SVC_REPORTING_DB_MAX_CONNS",
      "SVC_REPORTING_AUTH_MODE",
      "SVC_REPORTING_UNHEALTHY_THRESHOLD_S",
      "SVC_REPORTING_OIDC_JWKS_URL",
      "SVC_INGEST_REQUIRE_SIZE_SCHEMA",
      "SVC_REPORTING_ATTRIBUTING_RELATION_TYPES",
      "SVC_REPORTING_SYNC_ALLOW_AT",
      "SVC_REPORTING_SYNC_BUDGET_S",
      "SVC_REPORTING_SYNC_SETTLE_S",
      "SVC_METRICS_ENABLED",
      "SVC_REPORTING_METRICS_REFRESH_S",
    ];
    expect(messages).toHaveLength(variables.length);
    variables.forEach((v, i) => {
      expect(messages[i]).toContain(v);
    });
    expect(refusal({ ...base, SVC_REPORTING_ATTRIBUTING_RELATION_TYPES: "a,,b" })[0]).toContain(
      "empty entries",
    );
    expect(refusal({ SVC_REPORTING_DB_URL: "postgres://db/x" })).toEqual([
      "SVC_REPORTING_INTERNAL_TOKEN (or SVC_REPORTING_INTERNAL_TOKEN_FILE) is required unless SVC_REPORTING_AUTH_MODE is disabled",
    ]);
  });

  test("secrets through _FILE companions", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-settings-"));
    try {
      writeFileSync(join(dir, "db"), "postgres://u:pw@db/x\n");
      writeFileSync(join(dir, "empty"), "");
      const c = read({
        SVC_REPORTING_DB_URL_FILE: join(dir, "db"),
        SVC_REPORTING_INTERNAL_TOKEN: "t",
      });
      expect(c.dbUrl.reveal()).toBe("postgres://u:pw@db/x");
      expect(refusal({ ...base, SVC_REPORTING_DB_URL_FILE: join(dir, "db") })[0]).toContain("not both");
      expect(
        refusal({
          SVC_REPORTING_DB_URL: "postgres://db/x",
          SVC_REPORTING_INTERNAL_TOKEN_FILE: join(dir, "empty"),
        })[0],
      ).toContain("empty file");
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe("secrets in settings errors (issue 28, item 6)", () => {
  const password = "Hunter2-typo-pw";
  const dbUrlRefusal = "SVC_REPORTING_DB_URL takes an absolute URL with scheme postgres or postgresql";

  test("a database URL that is not one is refused as a setting, never quoted, whatever its shape", () => {
    for (const value of [
      `postgres//svc:${password}@db/reporting`,
      `postgres:svc:${password}@db/reporting`,
      `svc:${password}@db/reporting`,
      `${password}`,
    ]) {
      const problems = refusal({ ...base, SVC_REPORTING_DB_URL: value });
      expect(problems).toEqual([dbUrlRefusal]);
    }
    expect(refusal({ ...base, SVC_REPORTING_DB_URL: `mysql://svc:${password}@db/x` })).toEqual([
      "SVC_REPORTING_DB_URL takes a URL with scheme postgres or postgresql, not mysql",
    ]);
    expect(
      read({ ...base, SVC_REPORTING_DB_URL: "postgresql:///reporting?host=/run/postgresql" }).dbUrl.reveal(),
    ).toBe("postgresql:///reporting?host=/run/postgresql");
  });

  test("the server refuses to start with exit 1, naming the variable, and prints no part of the value", async () => {
    const run = await runProgram("cmd/reporting.ts", [], {
      SVC_REPORTING_DB_URL: `postgres//svc:${password}@db/reporting`,
      SVC_REPORTING_AUTH_MODE: "disabled",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(dbUrlRefusal);
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
    expect(`${run.stdout}${run.stderr}`).not.toContain("db/reporting");
  });
});
