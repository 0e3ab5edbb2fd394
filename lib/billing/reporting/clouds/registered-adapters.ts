import { AdapterRegistry } from "./adapter-registry.ts";
import { type PlatformAEnvironment, platformAAdapterFactory } from "./platform-a/platform-a-adapter.ts";

/**
 * The adapters the reporting server ships: `platform_a`, which reads its clouds.yaml from the
 * environment and working directory given (the process's own, passed in by `cmd/`).
 */
export function registeredAdapters(environment: PlatformAEnvironment): AdapterRegistry {
  return new AdapterRegistry([platformAAdapterFactory(environment)]);
}
