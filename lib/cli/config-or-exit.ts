import { ConfigError, type ConfigProblem } from "../config/config-error.ts";
import type { Env, Field } from "../config/fields.ts";
import { type ConfigOf, readConfig } from "../config/read-config.ts";
import { createLogger } from "../log/logger.ts";

/**
 * A program's configuration, or exit 1: each refused variable is logged as one JSON line (`service`
 * set, level error) before anything binds or dials. Entry scripts call this first.
 */
export function configOrExit<S extends Record<string, Field<unknown>>>(
  service: string,
  env: Env,
  spec: S,
  check?: (config: ConfigOf<S>) => ConfigProblem[],
): ConfigOf<S> {
  try {
    return readConfig(env, spec, check);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const logger = createLogger({ service, level: "ERROR" });
    for (const problem of err.problems) {
      logger.error({ variable: problem.variable }, `configuration refused: ${problem.message}`);
    }
    process.exit(1);
  }
}
