import { type Decimal, zero } from "../money/decimal.ts";
import type { Bucket, ProjectCost } from "./build-statements.ts";
import { projectKey } from "./registry.ts";

/**
 * A month's rated lines summed per project and (platform, resource type) bucket, as they stream by:
 * what `buildStatements` states. A run and a correction both meter a month through it, so the two
 * state the same costs from the same lines.
 */
export class ProjectCosts {
  readonly #costs = new Map<string, { cost: ProjectCost; buckets: Map<string, Bucket> }>();

  add(
    resource: { cloud: string; platform: string; resource_type: string },
    projectId: string,
    amount: Decimal,
  ): void {
    const key = projectKey(resource.cloud, projectId);
    let entry = this.#costs.get(key);
    if (entry === undefined) {
      entry = { cost: { cloud: resource.cloud, project_id: projectId, buckets: [] }, buckets: new Map() };
      this.#costs.set(key, entry);
    }
    const bucketKey = `${resource.platform}\u0000${resource.resource_type}`;
    let bucket = entry.buckets.get(bucketKey);
    if (bucket === undefined) {
      bucket = { platform: resource.platform, resource_type: resource.resource_type, amount: zero };
      entry.buckets.set(bucketKey, bucket);
      entry.cost.buckets.push(bucket);
    }
    bucket.amount = bucket.amount.plus(amount);
  }

  costs(): ProjectCost[] {
    return [...this.#costs.values()].map((c) => c.cost);
  }
}
