import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { growBatch, shrinkBatch } from "./batch-size.ts";
import { Outbox, OutboxError } from "./outbox.ts";
import { atBound, pauseDepth, prefetchFor } from "./outbox-bound.ts";

let dir: string;
let path: string;
const opened: Outbox[] = [];

function open(maxEvents = 100, now?: () => number): Outbox {
  const outbox = Outbox.open(path, { maxEvents, ...(now === undefined ? {} : { now }) });
  opened.push(outbox);
  return outbox;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-outbox-"));
  path = join(dir, "outbox.sqlite");
});
afterEach(() => {
  for (const outbox of opened.splice(0)) outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the outbox", () => {
  test("keeps events in order, hands out the oldest, removes a taken batch", () => {
    const outbox = open();
    expect(outbox.add(["a", "b", "c", "d"])).toBe(4);
    expect(outbox.depth).toBe(4);
    const batch = outbox.take(2);
    expect(batch.map((r) => r.json)).toEqual(["a", "b"]);
    expect(outbox.take(10, batch.at(-1)?.seq).map((r) => r.json)).toEqual(["c", "d"]);
    expect(outbox.remove(batch[0]?.seq ?? 0, batch[1]?.seq ?? 0)).toBe(2);
    expect(outbox.take(10).map((r) => r.json)).toEqual(["c", "d"]);
    expect(outbox.depth).toBe(2);
  });

  test("keeps what is buffered across a close and a reopen", () => {
    const first = open();
    first.add(["x", "y"]);
    first.close();
    const second = open();
    expect(second.depth).toBe(2);
    expect(second.take(5).map((r) => r.json)).toEqual(["x", "y"]);
  });

  test("takes only as many as fit under its bound; the rest is for the caller to requeue", () => {
    const outbox = open(3);
    expect(outbox.add(["1", "2"])).toBe(2);
    expect(outbox.add(["3", "4", "5"])).toBe(1);
    expect(outbox.add(["6"])).toBe(0);
    expect(outbox.take(10).map((r) => r.json)).toEqual(["1", "2", "3"]);
    expect(outbox.room).toBe(0);
  });

  test("reports the commit time of its oldest event, null when empty", () => {
    let clock = 1000;
    const outbox = open(10, () => clock);
    expect(outbox.oldestBufferedAt()).toBeNull();
    outbox.add(["a"]);
    clock = 5000;
    outbox.add(["b"]);
    expect(outbox.oldestBufferedAt()).toBe(1000);
    const [first] = outbox.take(1);
    outbox.remove(first?.seq ?? 0, first?.seq ?? 0);
    expect(outbox.oldestBufferedAt()).toBe(5000);
  });

  test("stores in WAL mode (synchronous is per connection: FULL is set at open)", () => {
    open().close();
    const db = new Database(path);
    expect(db.query("pragma journal_mode").get()).toEqual({ journal_mode: "wal" });
    db.close();
  });
});

describe("an outbox that refuses", () => {
  test("a second process's outbox on the same file is refused while the first holds it", async () => {
    open();
    const child = Bun.spawn(
      [
        "bun",
        "-e",
        `import { Outbox } from "${join(import.meta.dir, "outbox.ts")}";
         try { Outbox.open(${JSON.stringify(path)}, { maxEvents: 10 }); console.log("opened"); }
         catch (e) { console.log(e.message); }`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const out = await new Response(child.stdout).text();
    await child.exited;
    expect(out.trim()).toBe(`the outbox ${path} is in use by another process`);
  });

  test("a refused write stores none of it and marks the outbox unusable until a write works again", () => {
    let clock = 1;
    const outbox = open(100_000, () => clock);
    outbox.add(["seed"]);
    outbox.refuseWrites(true);
    clock = 42;
    expect(() => outbox.add(["x", "z"])).toThrow(OutboxError);
    expect(outbox.depth).toBe(1);
    expect(outbox.check()).toBe(false);
    expect(outbox.unusableSince).toBe(42);
    const [seed] = outbox.take(1);
    expect(() => outbox.remove(seed?.seq ?? 0, seed?.seq ?? 0)).toThrow(OutboxError);
    expect(outbox.depth).toBe(1);
    outbox.refuseWrites(false);
    outbox.add(["y"]);
    expect(outbox.check()).toBe(true);
    expect(outbox.unusableSince).toBeNull();
    expect(outbox.take(10).map((r) => r.json)).toEqual(["seed", "y"]);
  });

  test("a closed outbox does not answer", () => {
    const outbox = open();
    outbox.close();
    expect(outbox.check()).toBe(false);
    expect(() => outbox.add(["a"])).toThrow(OutboxError);
  });

  test("a path that cannot be created is refused with the path named", () => {
    expect(() => Outbox.open(join(dir, "missing", "outbox.sqlite"), { maxEvents: 1 })).toThrow(
      `the outbox ${join(dir, "missing", "outbox.sqlite")} cannot be opened`,
    );
  });
});

describe("bound and batch size", () => {
  test("the consumer pauses at 90 percent and has at most the last tenth in flight", () => {
    expect(pauseDepth(100_000)).toBe(90_000);
    expect(prefetchFor(100_000)).toBe(1000);
    expect(pauseDepth(100)).toBe(90);
    expect(prefetchFor(100)).toBe(10);
    expect(prefetchFor(1)).toBe(1);
    expect(atBound(89, 100)).toBe(false);
    expect(atBound(90, 100)).toBe(true);
  });

  test("paused at the pause depth, in-flight deliveries never pass the bound", () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 10_000_000 }), (max) => {
        expect(pauseDepth(max) + prefetchFor(max)).toBeLessThanOrEqual(max);
        expect(prefetchFor(max)).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  test("a 413 halves the batch down to one; acceptance grows it back to the maximum", () => {
    expect(shrinkBatch(500)).toBe(250);
    expect(shrinkBatch(1)).toBe(1);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), (size, max) => {
        const grown = growBatch(Math.min(size, max), max);
        expect(grown).toBeLessThanOrEqual(max);
        expect(grown).toBeGreaterThanOrEqual(Math.min(size + 1, max));
        expect(shrinkBatch(size)).toBeLessThanOrEqual(Math.max(1, size - 1));
      }),
    );
    let size = 1;
    let steps = 0;
    while (size < 1000) {
      size = growBatch(size, 1000);
      steps++;
    }
    expect(steps).toBeLessThan(30);
  });
});
