import { describe, expect, test } from "bun:test";
import { ReadQueue } from "./read-queue.ts";

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("ReadQueue", () => {
  test("handles in order, after the read that queued them, in slices", async () => {
    const handled: number[] = [];
    const queue = new ReadQueue<number>({
      handle: (n) => {
        handled.push(n);
        const until = performance.now() + 2;
        while (performance.now() < until);
      },
      pauseReading: () => {},
      maxBytes: 1_000,
      sliceMs: 5,
    });
    for (let n = 0; n < 10; n++) queue.push(n, 1);
    expect(handled).toEqual([]);
    await turn();
    // About 5 ms of 2 ms handlers, then the event loop reads again.
    expect(handled.length).toBeGreaterThan(0);
    expect(handled.length).toBeLessThan(10);
    for (let i = 0; i < 10 && handled.length < 10; i++) await turn();
    expect(handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(queue.bytes).toBe(0);
  });

  test("pauses reading past maxBytes, resumes below half, and drops everything when stopped", async () => {
    const calls: boolean[] = [];
    const handled: string[] = [];
    const queue = new ReadQueue<string>({
      handle: (s) => handled.push(s),
      pauseReading: (paused) => calls.push(paused),
      maxBytes: 100,
      sliceMs: 50,
    });
    queue.push("a", 60);
    expect(calls).toEqual([]);
    queue.push("b", 60);
    expect(calls).toEqual([true]);
    await turn();
    expect(handled).toEqual(["a", "b"]);
    expect(calls).toEqual([true, false]);
    queue.push("c", 10);
    queue.stop();
    queue.push("d", 10);
    await turn();
    expect(handled).toEqual(["a", "b"]);
    expect(queue.bytes).toBe(0);
  });
});
