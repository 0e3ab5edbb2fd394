import { compare } from "../../lib/foundation/collections/compare.ts";
import type { JsonObject } from "../../lib/foundation/json/json-value.ts";

/**
 * A resource as the sync and adapter tests compare it, whatever told them of it (the platform, the
 * oracle, an observation, the projection's rows): its `type/id` key, state, owner and size.
 */
export interface SeenResource {
  key: string;
  state: string | null;
  project_id: string;
  size: JsonObject | null;
}

export interface ResourceFacts {
  resource_type: string;
  resource_id: string;
  state: string | null;
  project_id: string;
  size: JsonObject | null;
}

export function seenResource(r: ResourceFacts): SeenResource {
  return {
    key: `${r.resource_type}/${r.resource_id}`,
    state: r.state,
    project_id: r.project_id,
    size: r.size,
  };
}

/** Sorts `items` by key, in place, and returns them: the order every side of a comparison is put in. */
export function inKeyOrder<T extends { key: string }>(items: T[]): T[] {
  return items.sort((a, b) => compare(a.key, b.key));
}
