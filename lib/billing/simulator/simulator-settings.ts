import type { ConfigProblem } from "../../foundation/config/config-error.ts";
import {
  amqpUrl,
  boolean,
  integer,
  secret,
  splitUrlList,
  text,
  url,
} from "../../foundation/config/fields.ts";
import type { ConfigOf } from "../../foundation/config/read-config.ts";
import { logLevelSetting } from "../../foundation/log/log-level-setting.ts";
import { metricsEnabledSetting } from "../../foundation/metrics/metrics-enabled-setting.ts";
import { cloudNameRule } from "../events/cloud-name.ts";

const serviceUrl = { schemes: ["https", "http"], noUserinfo: true, noQuery: true, noFragment: true } as const;

/** The environment of `simulator run` (docs/simulator.md#environment). */
export const runSettings = {
  logLevel: logLevelSetting,
  cloud: text("SVC_SIM_CLOUD", { required: true }, cloudNameRule),
  gardenCloud: text("SVC_SIM_GARDEN_CLOUD", { optional: true }, cloudNameRule),
  amqpUrl: secret("SVC_SIM_AMQP_URL", { optional: true }, { url: amqpUrl, urlList: true }),
  httpAddr: text("SVC_SIM_HTTP_ADDR", { default: "127.0.0.1" }),
  // 0 asks the system for a free port (tests); the listener logs the port it got.
  httpPort: integer("SVC_SIM_HTTP_PORT", { default: 8080 }, { min: 0, max: 65535 }),
  metricsEnabled: metricsEnabledSetting,
  reportingUrl: url("SVC_SIM_REPORTING_URL", { optional: true }, serviceUrl),
  reportingInsecure: boolean("SVC_SIM_REPORTING_INSECURE", { default: false }),
  apiToken: secret("SVC_SIM_API_TOKEN", { optional: true }),
  otlpUrl: url("SVC_SIM_OTLP_URL", { optional: true }, serviceUrl),
  otlpUser: text("SVC_SIM_OTLP_USER", { optional: true }),
  otlpPassword: secret("SVC_SIM_OTLP_PASSWORD", { optional: true }),
  otlpInsecure: boolean("SVC_SIM_OTLP_INSECURE", { default: false }),
};

type RunSettings = ConfigOf<typeof runSettings>;

/** The environment of `simulator replay`: the broker only, and where the control endpoint listens. */
export const replaySettings = {
  logLevel: logLevelSetting,
  amqpUrl: secret("SVC_SIM_AMQP_URL", { required: true }, { url: amqpUrl, urlList: true }),
  httpAddr: runSettings.httpAddr,
  httpPort: runSettings.httpPort,
};

/**
 * Rules that join variables and flags: the cluster-manager projects live under a cloud of their own;
 * registration needs the API, an admin token and the garden cloud; a credential travels over plain
 * HTTP only when the insecure switch says so; the push settings come all together (docs/simulator.md#pushing-traffic-over-otlp).
 */
export function checkRunSettings(
  config: RunSettings,
  flags: { "register-projects"?: boolean | undefined } = {},
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (variable: string, message: string) => problems.push({ variable, message });
  if (config.gardenCloud !== undefined && config.gardenCloud === config.cloud) {
    problem("SVC_SIM_GARDEN_CLOUD", "SVC_SIM_GARDEN_CLOUD must differ from SVC_SIM_CLOUD");
  }
  if (flags["register-projects"] === true) {
    const needed = [
      ["SVC_SIM_REPORTING_URL", config.reportingUrl],
      ["SVC_SIM_API_TOKEN", config.apiToken],
      ["SVC_SIM_GARDEN_CLOUD", config.gardenCloud],
    ] as const;
    for (const [variable, value] of needed) {
      if (value === undefined) problem(variable, `${variable} is required with --register-projects`);
    }
  }
  if (config.reportingUrl?.protocol === "http:" && !config.reportingInsecure) {
    problem(
      "SVC_SIM_REPORTING_URL",
      "SVC_SIM_REPORTING_URL takes an https URL (the admin token travels with every call); set SVC_SIM_REPORTING_INSECURE=true for plain http",
    );
  }
  if (config.otlpUrl !== undefined) {
    if (config.otlpUser === undefined) {
      problem("SVC_SIM_OTLP_USER", "SVC_SIM_OTLP_USER is required with SVC_SIM_OTLP_URL");
    }
    if (config.otlpPassword === undefined) {
      problem("SVC_SIM_OTLP_PASSWORD", "SVC_SIM_OTLP_PASSWORD is required with SVC_SIM_OTLP_URL");
    }
    if (config.otlpUrl.protocol === "http:" && !config.otlpInsecure) {
      problem(
        "SVC_SIM_OTLP_URL",
        "SVC_SIM_OTLP_URL takes an https URL (the push carries a password); set SVC_SIM_OTLP_INSECURE=true for plain http",
      );
    }
  }
  return problems;
}

/**
 * True when the broker URL (every URL of a list, decision 37) names this machine. Refusing other
 * hosts unless `--allow-remote-broker` keeps a simulated month from landing on a real cloud's bus by a
 * stray variable.
 */
export function isLocalBroker(urls: string): boolean {
  return splitUrlList(urls).every((url) => {
    let host: string;
    try {
      host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    } catch {
      return false;
    }
    return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
  });
}
