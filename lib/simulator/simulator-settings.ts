import type { ConfigProblem } from "../config/config-error.ts";
import { integer, secret, text } from "../config/fields.ts";
import type { ConfigOf } from "../config/read-config.ts";
import { cloudNameRule } from "../events/cloud-name.ts";
import { logLevelSetting } from "../log/log-level-setting.ts";
import { metricsEnabledSetting } from "../metrics/metrics-enabled-setting.ts";

/**
 * The environment of `simulator run` (spec 2, end of the simulator section). Registration and the OTLP
 * push read further variables; they come with the issue that builds them.
 */
export const runSettings = {
  logLevel: logLevelSetting,
  cloud: text("SVC_SIM_CLOUD", { required: true }, cloudNameRule),
  gardenCloud: text("SVC_SIM_GARDEN_CLOUD", { optional: true }, cloudNameRule),
  amqpUrl: secret("SVC_SIM_AMQP_URL", { optional: true }),
  httpAddr: text("SVC_SIM_HTTP_ADDR", { default: "127.0.0.1" }),
  httpPort: integer("SVC_SIM_HTTP_PORT", { default: 8080 }, { min: 1, max: 65535 }),
  metricsEnabled: metricsEnabledSetting,
};

export type RunSettings = ConfigOf<typeof runSettings>;

/** Rules that join variables: the cluster-manager projects live under a cloud of their own. */
export function checkRunSettings(config: RunSettings): ConfigProblem[] {
  if (config.gardenCloud !== undefined && config.gardenCloud === config.cloud) {
    return [
      { variable: "SVC_SIM_GARDEN_CLOUD", message: "SVC_SIM_GARDEN_CLOUD must differ from SVC_SIM_CLOUD" },
    ];
  }
  return [];
}

/**
 * True when the broker URL names this machine. Refusing other hosts unless `--allow-remote-broker`
 * keeps a simulated month from landing on a real cloud's bus by a stray variable.
 */
export function isLocalBroker(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
