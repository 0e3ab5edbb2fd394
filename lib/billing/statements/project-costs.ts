import { type Decimal, zero } from "../../foundation/money/decimal.ts";
import type { Bucket, ProjectCost } from "./build-statements.ts";

/**
 * A month's rated lines summed per project and (platform, resource type) bucket, as they stream by:
 * what `buildStatements` states. A run and a correction both meter a month through it, so the two
 * state the same costs from the same lines.
 */
export class ProjectCosts {
  // Maps nested by each part of the keys rather than one joined key: a month adds a few hundred
  // thousand lines, and a key string built per line cost more than the sum (decision 433).
  readonly #projects = new Map<string, Map<string, ProjectEntry>>();
  readonly #order: ProjectCost[] = [];

  add(
    resource: { cloud: string; platform: string; resource_type: string },
    projectId: string,
    amount: Decimal,
  ): void {
    const ofCloud = inner(this.#projects, resource.cloud);
    let entry = ofCloud.get(projectId);
    if (entry === undefined) {
      entry = { cost: { cloud: resource.cloud, project_id: projectId, buckets: [] }, buckets: new Map() };
      ofCloud.set(projectId, entry);
      this.#order.push(entry.cost);
    }
    const ofPlatform = inner(entry.buckets, resource.platform);
    let bucket = ofPlatform.get(resource.resource_type);
    if (bucket === undefined) {
      bucket = { platform: resource.platform, resource_type: resource.resource_type, amount: zero };
      ofPlatform.set(resource.resource_type, bucket);
      entry.cost.buckets.push(bucket);
    }
    bucket.amount = bucket.amount.plus(amount);
  }

  /** Per project in the order each was first added, its buckets likewise. */
  costs(): ProjectCost[] {
    return [...this.#order];
  }
}

/** The map under `key`, made empty on first use. */
function inner<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let map = outer.get(key);
  if (map === undefined) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}

interface ProjectEntry {
  cost: ProjectCost;
  /** By platform, then resource type. */
  buckets: Map<string, Map<string, Bucket>>;
}
