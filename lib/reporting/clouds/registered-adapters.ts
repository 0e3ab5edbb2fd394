import { AdapterRegistry } from "./adapter-registry.ts";

/**
 * The adapters the reporting server ships. Empty until reconciliation brings the `platform_a` adapter,
 * so until then a clouds file naming any cloud refuses startup.
 */
export function registeredAdapters(): AdapterRegistry {
  return new AdapterRegistry([]);
}
