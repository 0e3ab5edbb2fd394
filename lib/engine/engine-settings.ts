import { commaList, type Env, integer, path, secret, url } from "../config/fields.ts";
import { readConfig } from "../config/read-config.ts";

/** Settings every engine command needs: its own database. */
export const engineDbSettings = {
  dbUrl: secret("SVC_ENGINE_DB_URL", { required: true }),
};

/**
 * Settings of the commands that meter (`run`, and later `correct` and `detect-late`): the reporting
 * database, the counters and the adjustment walk (decision 409: depth 3 by default).
 */
export const meteringSettings = {
  ...engineDbSettings,
  reportingDbUrl: secret("SVC_ENGINE_REPORTING_DB_URL", { required: true }),
  counterSources: path("SVC_ENGINE_COUNTER_SOURCES", { optional: true }),
  vmUrl: url(
    "SVC_ENGINE_VM_URL",
    { optional: true },
    { schemes: ["http", "https"], noQuery: true, noFragment: true },
  ),
  relationTypes: commaList("SVC_ENGINE_ADJUSTMENT_RELATION_TYPES", { default: ["managed_by", "member_of"] }),
  depth: integer("SVC_ENGINE_ADJUSTMENT_DEPTH", { default: 3 }, { min: 1, max: 32 }),
  pricingModel: path("SVC_ENGINE_PRICING_MODEL", { optional: true }),
};

export function readEngineDbSettings(env: Env) {
  return readConfig(env, engineDbSettings);
}

export function readMeteringSettings(env: Env) {
  return readConfig(env, meteringSettings, (c) =>
    c.counterSources !== undefined && c.vmUrl === undefined
      ? [
          {
            variable: "SVC_ENGINE_VM_URL",
            message: "SVC_ENGINE_VM_URL is required when SVC_ENGINE_COUNTER_SOURCES is set",
          },
        ]
      : [],
  );
}
