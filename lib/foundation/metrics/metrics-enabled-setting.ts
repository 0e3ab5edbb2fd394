import { boolean } from "../config/fields.ts";

/** `SVC_METRICS_ENABLED`, shared by every program that serves `/metrics`; default true. */
export const metricsEnabledSetting = boolean("SVC_METRICS_ENABLED", { default: true });
