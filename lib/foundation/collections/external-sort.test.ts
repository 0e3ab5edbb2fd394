import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { ExternalSort } from "./external-sort.ts";

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "svc-external-sort-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

interface Item {
  key: number;
  /** Order of addition: shows stability. */
  seq: number;
  text: string;
}

function sorter(budgetItems: number, fanIn = 64) {
  return new ExternalSort<Item>({
    compare: (a, b) => a.key - b.key,
    codec: { encode: (i) => JSON.stringify(i), decode: (line) => JSON.parse(line) as Item },
    bytesPerItem: 1,
    budgetBytes: budgetItems,
    workDir,
    fanIn,
  });
}

async function sortAll(items: Item[], budgetItems: number, fanIn?: number) {
  const sort = sorter(budgetItems, fanIn);
  for (const item of items) if (sort.add(item)) await sort.spill();
  const runs = sort.runCount;
  const out: Item[] = [];
  await sort.drain((item) => {
    out.push(item);
    return undefined;
  });
  return { out, runs };
}

const itemsArb = fc
  .array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.string({ maxLength: 8 })), { maxLength: 300 })
  .map((xs) => xs.map(([key, text], seq) => ({ key, seq, text })));

describe("external sort", () => {
  test("the stable sort of what was added, in memory, over runs, and over passes of runs", async () => {
    await fc.assert(
      fc.asyncProperty(itemsArb, fc.integer({ min: 1, max: 40 }), async (items, budget) => {
        const expected = [...items].sort((a, b) => a.key - b.key);
        expect((await sortAll(items, 1_000_000)).out).toEqual(expected);
        expect((await sortAll(items, budget)).out).toEqual(expected);
        expect((await sortAll(items, budget, 2)).out).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  test("within its budget nothing is written; past it runs are, and removed after the merge", async () => {
    const items = Array.from({ length: 100 }, (_, seq) => ({ key: (seq * 37) % 11, seq, text: "x\ty" }));
    expect((await sortAll(items, 1000)).runs).toBe(0);
    expect((await sortAll(items, 10)).runs).toBe(10);
    expect(await readdir(workDir)).toEqual([]);
  });

  test("lines longer than a read chunk come back whole", async () => {
    const long = "é".repeat(700_000);
    const items = [3, 1, 2].map((key, seq) => ({ key, seq, text: `${long}${key}` }));
    const { out, runs } = await sortAll(items, 1);
    expect(runs).toBe(3);
    expect(out.map((i) => i.text)).toEqual([`${long}1`, `${long}2`, `${long}3`]);
  });

  test("a merge stopped part way removes its runs too", async () => {
    const sort = sorter(5);
    for (let seq = 0; seq < 50; seq++) if (sort.add({ key: seq % 7, seq, text: "" })) await sort.spill();
    for await (const batch of sort.batches(3)) {
      expect(batch).toHaveLength(3);
      break;
    }
    expect(await readdir(workDir)).toEqual([]);
  });
});
