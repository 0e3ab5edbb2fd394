import { zero } from "../../foundation/money/decimal.ts";
import { addDimensionUsage, type DimensionUsage } from "../pricing/plan-lines.ts";
import type { Plan } from "../pricing/plans.ts";
import type { RatedLine } from "../pricing/rate-resource.ts";
import type { Bucket, ProjectCost } from "./build-statements.ts";

/** What a rated line adds to its project's costs. */
export type CostLine = Pick<RatedLine, "project_id" | "dimension" | "numerator" | "priced" | "amount">;

/**
 * A month's rated lines summed per project and (platform, resource type) bucket, as they stream by:
 * what `buildStatements` states. A run and a correction both meter a month through it, so the two
 * state the same costs from the same lines. The usage of a dimension some plan tiers is summed beside
 * (numerator and list price, exact), for the tier lines (docs/pricing-model.md#tiers); no other
 * dimension's is, so a model without plans sums what it summed before.
 */
export class ProjectCosts {
  // Maps nested by each part of the keys rather than one joined key: a month adds a few hundred
  // thousand lines, and a key string built per line cost more than the sum (decision 433).
  readonly #projects = new Map<string, Map<string, ProjectEntry>>();
  readonly #order: ProjectCost[] = [];
  /** platform → resource type → the dimensions some plan tiers. */
  readonly #tiered = new Map<string, Map<string, Set<string>>>();

  constructor(plans: readonly Plan[] = []) {
    for (const plan of plans)
      for (const t of plan.tiered) {
        const ofPlatform = inner(this.#tiered, t.platform);
        const dims = ofPlatform.get(t.resource_type) ?? new Set<string>();
        dims.add(t.dimension);
        ofPlatform.set(t.resource_type, dims);
      }
  }

  add(resource: { cloud: string; platform: string; resource_type: string }, line: CostLine): void {
    const ofCloud = inner(this.#projects, resource.cloud);
    let entry = ofCloud.get(line.project_id);
    if (entry === undefined) {
      entry = {
        cost: { cloud: resource.cloud, project_id: line.project_id, buckets: [], usage: [] },
        buckets: new Map(),
      };
      ofCloud.set(line.project_id, entry);
      this.#order.push(entry.cost);
    }
    const ofPlatform = inner(entry.buckets, resource.platform);
    let bucket = ofPlatform.get(resource.resource_type);
    if (bucket === undefined) {
      bucket = { platform: resource.platform, resource_type: resource.resource_type, amount: zero };
      ofPlatform.set(resource.resource_type, bucket);
      entry.cost.buckets.push(bucket);
    }
    bucket.amount = bucket.amount.plus(line.amount);
    if (this.#tiered.get(resource.platform)?.get(resource.resource_type)?.has(line.dimension) !== true)
      return;
    addDimensionUsage(entry.cost.usage as DimensionUsage[], {
      platform: resource.platform,
      resource_type: resource.resource_type,
      dimension: line.dimension,
      numerator: line.numerator,
      priced: line.priced,
    });
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
