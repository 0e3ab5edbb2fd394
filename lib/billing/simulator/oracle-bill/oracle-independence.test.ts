import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importGraph } from "../../../../harness/tree/import-graph.ts";
import { filesUnder } from "../../../../harness/tree/tree-files.ts";

const root = join(import.meta.dir, "../../../..");

/** The engine's cores: what the oracle must not read, or compare would check the engine against itself. */
const engineSide = ["engine", "pricing", "statements", "corrections", "metering"].map(
  (a) => `lib/billing/${a}/`,
);

describe("the oracle prices its month on its own (decision 454)", () => {
  test("the oracle's bill and compare's comparisons run nothing of the engine, its pricing or its statements", () => {
    const files = filesUnder(root, ["lib"], /\.ts$/).filter((f) => !f.endsWith(".test.ts"));
    const edges = importGraph(root, files);
    const next = new Map<string, string[]>();
    // A type-only import is erased: it cannot run the engine's code, only name its shapes.
    for (const e of edges.filter((edge) => !edge.typeOnly))
      next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const starts = [
      ...files.filter((f) => f.startsWith("lib/billing/simulator/oracle-bill/")),
      "lib/billing/compare/compare-oracle.ts",
      "lib/billing/compare/compare-statements.ts",
    ];
    const reached = new Set<string>(starts);
    const queue = [...starts];
    for (let file = queue.pop(); file !== undefined; file = queue.pop())
      for (const to of next.get(file) ?? [])
        if (!reached.has(to)) {
          reached.add(to);
          queue.push(to);
        }
    expect(starts.length).toBeGreaterThan(6);
    expect([...reached].filter((f) => engineSide.some((side) => f.startsWith(side))).sort()).toEqual([]);
  });
});
