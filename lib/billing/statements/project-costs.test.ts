import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decimal, zero } from "../../foundation/money/decimal.ts";
import { ProjectCosts } from "./project-costs.ts";

describe("ProjectCosts", () => {
  test("sums each line into its project's bucket, in first-seen order, however lines and resources repeat", () => {
    const resource = fc.record({
      cloud: fc.constantFrom("c1", "c2"),
      platform: fc.constantFrom("platform_a", "platform_b"),
      resource_type: fc.constantFrom("instance", "volume"),
    });
    const line = fc.record({
      project: fc.constantFrom("p1", "p2", "p3"),
      cents: fc.integer({ min: -500, max: 5000 }),
    });
    // Each resource object adds its lines together, as a run adds a rated resource's lines.
    const month = fc.array(fc.tuple(resource, fc.array(line, { maxLength: 4 })), { maxLength: 12 });
    fc.assert(
      fc.property(month, (month) => {
        const costs = new ProjectCosts();
        const expected: { cloud: string; project_id: string; buckets: Map<string, number> }[] = [];
        for (const [resource, lines] of month) {
          for (const { project, cents } of lines) {
            costs.add(resource, {
              project_id: project,
              dimension: "d",
              numerator: zero,
              priced: zero,
              amount: decimal((cents / 100).toFixed(2)),
            });
            let cost = expected.find((c) => c.cloud === resource.cloud && c.project_id === project);
            if (cost === undefined) {
              cost = { cloud: resource.cloud, project_id: project, buckets: new Map() };
              expected.push(cost);
            }
            const key = `${resource.platform}.${resource.resource_type}`;
            cost.buckets.set(key, (cost.buckets.get(key) ?? 0) + cents);
          }
        }
        const actual = costs.costs().map((c) => ({
          cloud: c.cloud,
          project_id: c.project_id,
          buckets: c.buckets.map((b) => [`${b.platform}.${b.resource_type}`, b.amount.toFixed(2)]),
        }));
        expect(actual).toEqual(
          expected.map((c) => ({
            cloud: c.cloud,
            project_id: c.project_id,
            buckets: [...c.buckets].map(([key, cents]) => [key, (cents / 100).toFixed(2)]),
          })),
        );
      }),
      { numRuns: 2_000 },
    );
  });
});
