import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * A registry per program with the runtime and process collectors. Instruments register on it and keep
 * counting whether or not `/metrics` is served.
 */
export function createRegistry(labels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry });
  return registry;
}
