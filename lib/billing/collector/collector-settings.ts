import type { ConfigProblem } from "../../foundation/config/config-error.ts";
import {
  boolean,
  commaList,
  integer,
  oneOf,
  path,
  secret,
  text,
  url,
  urlListComplaint,
} from "../../foundation/config/fields.ts";
import type { ConfigOf } from "../../foundation/config/read-config.ts";
import type { Secret } from "../../foundation/config/secret.ts";
import { logLevelSetting } from "../../foundation/log/log-level-setting.ts";
import { metricsEnabledSetting } from "../../foundation/metrics/metrics-enabled-setting.ts";
import { cloudNameRule } from "../events/cloud-name.ts";

/** An exchange or topic name: what AMQP takes as a short string, without commas or spaces. */
function amqpName(entry: string): string | null {
  return /^[A-Za-z0-9_.:-]{1,255}$/.test(entry)
    ? null
    : `${JSON.stringify(entry.slice(0, 80))} is not a name (letters, digits, '_', '.', ':', '-')`;
}

/**
 * Every setting of the collector (docs/collector.md#environment), refused
 * whole at start with each variable named. The four that only the delivery path needs are optional
 * here and required by `checkCollectorSettings` unless `--dump` is given, which needs only the broker.
 */
export const collectorSettings = {
  logLevel: logLevelSetting,
  amqpUrl: secret("SVC_OSC_AMQP_URL", { required: true }),
  exchanges: commaList(
    "SVC_OSC_EXCHANGES",
    { default: ["nova", "neutron", "platform_a", "glance"] },
    amqpName,
  ),
  // nova's versioned notifications go to their own topic (decision 285); nothing else publishes there.
  topics: commaList(
    "SVC_OSC_TOPICS",
    { default: ["notifications.info", "versioned_notifications.info"] },
    amqpName,
  ),
  queueType: oneOf("SVC_OSC_QUEUE_TYPE", ["quorum", "classic"], { default: "quorum" }),
  requireExchanges: boolean("SVC_OSC_REQUIRE_EXCHANGES", { default: false }),
  cloud: text("SVC_OSC_CLOUD", { optional: true }, cloudNameRule),
  reportingUrl: url(
    "SVC_OSC_REPORTING_URL",
    { optional: true },
    { schemes: ["https", "http"], noUserinfo: true, noQuery: true, noFragment: true },
  ),
  reportingInsecure: boolean("SVC_OSC_REPORTING_INSECURE", { default: false }),
  ingestToken: secret("SVC_OSC_INGEST_TOKEN", { optional: true }),
  outboxPath: path("SVC_OSC_OUTBOX_PATH", { optional: true }),
  bufferMaxEvents: integer("SVC_OSC_BUFFER_MAX_EVENTS", { default: 100_000 }, { min: 10, max: 100_000_000 }),
  batchMax: integer("SVC_OSC_BATCH_MAX", { default: 500 }, { min: 1, max: 1000 }),
  batchesInFlight: integer("SVC_OSC_BATCHES_IN_FLIGHT", { default: 3 }, { min: 1, max: 16 }),
  // 0 asks the system for a free port (tests); the listener logs the port it got.
  httpPort: integer("SVC_OSC_HTTP_PORT", { default: 8090 }, { min: 0, max: 65535 }),
  unhealthyThresholdS: integer("SVC_OSC_UNHEALTHY_THRESHOLD_S", { default: 600 }, { min: 1 }),
  summaryIntervalS: integer("SVC_OSC_SUMMARY_INTERVAL_S", { default: 60 }, { min: 1, max: 86_400 }),
  metricsEnabled: metricsEnabledSetting,
};

export type CollectorConfig = ConfigOf<typeof collectorSettings>;

/** The settings of the delivery path, all present. */
export interface DeliverySettings {
  cloud: string;
  reportingUrl: URL;
  ingestToken: Secret;
  outboxPath: string;
}

const deliveryVariables = {
  cloud: "SVC_OSC_CLOUD",
  reportingUrl: "SVC_OSC_REPORTING_URL",
  ingestToken: "SVC_OSC_INGEST_TOKEN",
  outboxPath: "SVC_OSC_OUTBOX_PATH",
} as const;

/**
 * Rules beyond one variable's type: a broker URL (checked here so that it is never quoted), at least one
 * exchange and topic; without `--dump`, the delivery settings are required; the ingest
 * credential goes over plain HTTP only when `SVC_OSC_REPORTING_INSECURE` says so.
 */
export function checkCollectorSettings(config: CollectorConfig, flags: { dump: boolean }): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const broker = urlListComplaint(config.amqpUrl.reveal(), { schemes: ["amqp", "amqps"] });
  if (broker !== null)
    problems.push({ variable: "SVC_OSC_AMQP_URL", message: `SVC_OSC_AMQP_URL takes ${broker}` });
  if (config.exchanges.length === 0)
    problems.push({ variable: "SVC_OSC_EXCHANGES", message: "SVC_OSC_EXCHANGES names no exchange" });
  if (config.topics.length === 0)
    problems.push({ variable: "SVC_OSC_TOPICS", message: "SVC_OSC_TOPICS names no topic" });
  if (flags.dump) return problems;
  for (const [key, variable] of Object.entries(deliveryVariables)) {
    if (config[key as keyof typeof deliveryVariables] === undefined) {
      const companion = key === "ingestToken" ? ` (or ${variable}_FILE)` : "";
      problems.push({ variable, message: `${variable}${companion} is required unless --dump is given` });
    }
  }
  if (config.reportingUrl?.protocol === "http:" && !config.reportingInsecure) {
    problems.push({
      variable: "SVC_OSC_REPORTING_URL",
      message:
        "SVC_OSC_REPORTING_URL takes an https URL (the ingest credential travels with every batch); set SVC_OSC_REPORTING_INSECURE=true for plain http",
    });
  }
  return problems;
}

/** The delivery settings of a configuration `checkCollectorSettings` passed without `--dump`. */
export function deliverySettings(config: CollectorConfig): DeliverySettings {
  const { cloud, reportingUrl, ingestToken, outboxPath } = config;
  if (
    cloud === undefined ||
    reportingUrl === undefined ||
    ingestToken === undefined ||
    outboxPath === undefined
  )
    throw new Error("the delivery settings were not checked");
  return { cloud, reportingUrl, ingestToken, outboxPath };
}
