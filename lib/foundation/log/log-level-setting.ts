import { oneOf } from "../config/fields.ts";
import { logLevels } from "./log-levels.ts";

/** `SVC_LOG_LEVEL`, shared by every program: exactly DEBUG, INFO, WARN or ERROR, default INFO. */
export const logLevelSetting = oneOf("SVC_LOG_LEVEL", logLevels, { default: "INFO" });
