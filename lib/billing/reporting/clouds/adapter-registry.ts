import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { Observation, ObserveRequest } from "../sync/observation.ts";

/** One cloud as the clouds file declares it. `options` are the adapter's own members, passed through. */
export interface CloudConfig {
  name: string;
  platform: string;
  adapter: string;
  options: JsonObject;
}

/**
 * What reconciliation asks of a platform: it observes the cloud it was made for, listing every
 * resource of the types it names whole (`lib/billing/reporting/sync/observation.ts`).
 */
export interface PlatformAdapter {
  readonly platform: string;
  /** The types a run lists whole: projection rows of other types are never corrected. */
  readonly resourceTypes: readonly string[];
  /** One look at the cloud; rejects when the platform refuses or does not answer. */
  observe(request: ObserveRequest): Promise<Observation>;
}

export interface AdapterFactory {
  /** The name a clouds file's `adapter` member uses. */
  name: string;
  /** The platform the adapter observes; a cloud declaring another platform is refused. */
  platform: string;
  /** Builds the adapter for one cloud; throws on options it cannot use. Must not dial anything. */
  create(cloud: CloudConfig): PlatformAdapter;
}

/** The adapters a server knows, by name (`registered-adapters.ts`). */
export class AdapterRegistry {
  readonly #factories = new Map<string, AdapterFactory>();

  constructor(factories: readonly AdapterFactory[] = []) {
    for (const f of factories) this.register(f);
  }

  register(factory: AdapterFactory): this {
    if (this.#factories.has(factory.name)) throw new Error(`adapter ${factory.name} is registered twice`);
    this.#factories.set(factory.name, factory);
    return this;
  }

  get(name: string): AdapterFactory | undefined {
    return this.#factories.get(name);
  }

  names(): string[] {
    return [...this.#factories.keys()].sort();
  }
}
