import type { ConfigProblem } from "../../foundation/config/config-error.ts";
import { commaList, integer, path, postgresUrl, secret, url } from "../../foundation/config/fields.ts";

/** Settings every engine command needs: its own database. */
export const engineDbSettings = {
  dbUrl: secret("SVC_ENGINE_DB_URL", { required: true }, { url: postgresUrl }),
};

/** Settings of the commands that read the month's events (`detect-late`): the reporting database too. */
export const readingSettings = {
  ...engineDbSettings,
  reportingDbUrl: secret("SVC_ENGINE_REPORTING_DB_URL", { required: true }, { url: postgresUrl }),
};

/**
 * Settings of `correct`: both databases and the counters. The pricing model and the adjustment walk
 * are the corrected run's (decisions 405, 425), so none is read from the environment.
 */
export const correctingSettings = {
  ...readingSettings,
  counterSources: path("SVC_ENGINE_COUNTER_SOURCES", { optional: true }),
  vmUrl: url(
    "SVC_ENGINE_VM_URL",
    { optional: true },
    { schemes: ["http", "https"], noQuery: true, noFragment: true },
  ),
};

/**
 * Settings of `run`: the counters and the adjustment walk (decision 409: depth 3 by default) besides
 * both databases, and the pricing model when no `--pricing` names one.
 */
export const meteringSettings = {
  ...correctingSettings,
  relationTypes: commaList("SVC_ENGINE_ADJUSTMENT_RELATION_TYPES", { default: ["managed_by", "member_of"] }),
  depth: integer("SVC_ENGINE_ADJUSTMENT_DEPTH", { default: 3 }, { min: 1, max: 32 }),
  pricingModel: path("SVC_ENGINE_PRICING_MODEL", { optional: true }),
};

/** Counter sources are read from a metrics store, so naming them without one is refused. */
export function checkMeteringSettings(config: {
  counterSources: string | undefined;
  vmUrl: URL | undefined;
}): ConfigProblem[] {
  return config.counterSources !== undefined && config.vmUrl === undefined
    ? [
        {
          variable: "SVC_ENGINE_VM_URL",
          message: "SVC_ENGINE_VM_URL is required when SVC_ENGINE_COUNTER_SOURCES is set",
        },
      ]
    : [];
}
