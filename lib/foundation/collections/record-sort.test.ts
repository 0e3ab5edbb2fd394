import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { RecordReader, RecordWriter } from "./byte-record.ts";
import { compare } from "./compare.ts";
import { RecordSort } from "./record-sort.ts";

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "svc-record-sort-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

interface Item {
  order: number;
  tie: string;
  /** Order of addition: shows stability. */
  seq: number;
  text: string;
}

const writer = new RecordWriter();

function sortAll(items: Item[], budgetBytes: number, fanIn?: number) {
  const sort = new RecordSort({ budgetBytes, workDir, ...(fanIn === undefined ? {} : { fanIn }) });
  for (const item of items) {
    sort.add(
      writer
        .start(item.order, item.tie)
        .byte(item.seq % 256)
        .text(item.text)
        .byte(item.seq >> 8)
        .finish(),
    );
  }
  const runs = sort.runCount;
  const out: Item[] = [];
  for (const record of sort.records()) {
    const reader = new RecordReader(record);
    const tie = reader.tie();
    const low = reader.byte();
    const text = reader.text();
    const seq = low + (reader.byte() << 8);
    out.push({ order: (items[seq] as Item).order, tie, seq, text });
  }
  return { out, runs };
}

const expectedOrder = (items: Item[]) =>
  [...items].sort((a, b) => a.order - b.order || compare(a.tie, b.tie) || a.seq - b.seq);

const itemsArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: -20, max: 20 }).map((n) => n * 1e12),
      fc.constantFrom("", "a", "ab", "b", "instance/1"),
      fc.string({ maxLength: 40 }),
    ),
    { maxLength: 300 },
  )
  .map((xs) => xs.map(([order, tie, text], seq) => ({ order, tie, seq, text })));

describe("record sort", () => {
  test("the stable sort by order then tie, in memory, over runs, and over passes of runs", () => {
    fc.assert(
      fc.property(itemsArb, fc.integer({ min: 100, max: 2000 }), (items, budget) => {
        const expected = expectedOrder(items);
        expect(sortAll(items, 1_000_000).out).toEqual(expected);
        expect(sortAll(items, budget).out).toEqual(expected);
        expect(sortAll(items, budget, 2).out).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  test("within its budget nothing is written; past it runs are, and removed after the merge", async () => {
    const items = Array.from({ length: 100 }, (_, seq) => ({
      order: (seq * 37) % 11,
      tie: "k",
      seq,
      text: "x",
    }));
    expect(sortAll(items, 100_000).runs).toBe(0);
    // Each record is 22 bytes: ten of them fill an arena of 220, the last ten are spilled by the merge.
    expect(sortAll(items, 220).runs).toBe(9);
    expect(await readdir(workDir)).toEqual([]);
  });

  test("records larger than the arena and than a reader's window come back whole", () => {
    const long = "é".repeat(100_000);
    const items = [3, 1, 2].map((order, seq) => ({ order, tie: "", seq, text: `${long}${order}` }));
    const { out, runs } = sortAll(items, 1000);
    expect(runs).toBe(3);
    expect(out.map((i) => i.text)).toEqual([`${long}1`, `${long}2`, `${long}3`]);
  });

  test("a merge stopped part way removes its runs too", async () => {
    const sort = new RecordSort({ budgetBytes: 100, workDir });
    for (let seq = 0; seq < 50; seq++)
      sort.add(
        writer
          .start(seq % 7, "")
          .byte(seq)
          .finish(),
      );
    for (const record of sort.records()) {
      expect(record.length).toBe(15);
      break;
    }
    expect(await readdir(workDir)).toEqual([]);
  });
});
