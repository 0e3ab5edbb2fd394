import type { ConfigProblem } from "../../../foundation/config/config-error.ts";
import {
  boolean,
  commaList,
  integer,
  mustBeUnset,
  oneOf,
  path,
  postgresUrl,
  secret,
} from "../../../foundation/config/fields.ts";
import type { ConfigOf } from "../../../foundation/config/read-config.ts";
import { logLevelSetting } from "../../../foundation/log/log-level-setting.ts";
import { metricsEnabledSetting } from "../../../foundation/metrics/metrics-enabled-setting.ts";

/** Relation types that reach a virtual project and attribute no cost: never walked by the cycle guard. */
const nonAttributing = ["member_of", "managed_by"];

/** Every setting of the reporting server (1-reporting-api.md, Settings), with type, default and refusal. */
export const reportingSettings = {
  logLevel: logLevelSetting,
  // 0 asks the system for a free port (tests); the listener logs the port it got.
  httpPort: integer("SVC_REPORTING_HTTP_PORT", { default: 8080 }, { min: 0, max: 65535 }),
  dbUrl: secret("SVC_REPORTING_DB_URL", { required: true }, { url: postgresUrl }),
  dbMaxConns: integer("SVC_REPORTING_DB_MAX_CONNS", { default: 10 }, { min: 1 }),
  authMode: oneOf("SVC_REPORTING_AUTH_MODE", ["enforced", "disabled"], { default: "enforced" }),
  internalToken: secret("SVC_REPORTING_INTERNAL_TOKEN", { optional: true }),
  unhealthyThresholdS: integer("SVC_REPORTING_UNHEALTHY_THRESHOLD_S", { default: 600 }, { min: 1 }),
  oidcJwksUrl: mustBeUnset(
    "SVC_REPORTING_OIDC_JWKS_URL",
    "bearer JWT acceptance through an identity provider is not implemented",
  ),
  requireSizeSchema: boolean("SVC_INGEST_REQUIRE_SIZE_SCHEMA", { default: false }),
  attributingRelationTypes: commaList(
    "SVC_REPORTING_ATTRIBUTING_RELATION_TYPES",
    { default: ["infrastructure_tenant"] },
    (entry) =>
      nonAttributing.includes(entry)
        ? `${entry} reaches a virtual project and attributes no cost; it cannot be an attributing type`
        : /^[a-z0-9_]{1,64}$/.test(entry)
          ? null
          : "a relation type is lower-case letters, digits and underscores",
  ),
  cloudsConfig: path("SVC_REPORTING_CLOUDS_CONFIG", { optional: true }),
  syncAllowAt: boolean("SVC_REPORTING_SYNC_ALLOW_AT", { default: false }),
  syncBudgetS: integer("SVC_REPORTING_SYNC_BUDGET_S", { default: 45 }, { min: 1, max: 86_400 }),
  syncSettleS: integer("SVC_REPORTING_SYNC_SETTLE_S", { default: 60 }, { min: 0, max: 3600 }),
  metricsEnabled: metricsEnabledSetting,
  metricsRefreshS: integer("SVC_REPORTING_METRICS_REFRESH_S", { default: 60 }, { min: 1 }),
};

type ReportingSettings = ConfigOf<typeof reportingSettings>;

/** Rules joining several variables. */
export function checkReportingSettings(config: ReportingSettings): ConfigProblem[] {
  if (config.authMode === "enforced" && config.internalToken === undefined) {
    return [
      {
        variable: "SVC_REPORTING_INTERNAL_TOKEN",
        message:
          "SVC_REPORTING_INTERNAL_TOKEN (or SVC_REPORTING_INTERNAL_TOKEN_FILE) is required unless SVC_REPORTING_AUTH_MODE is disabled",
      },
    ];
  }
  return [];
}
