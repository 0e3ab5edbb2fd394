import { expect, test } from "bun:test";
import fc from "fast-check";
import { siftDown, siftUp } from "./binary-heap.ts";

test("pushes with siftUp and pops with siftDown give the items in order", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 200 }), (items) => {
      const before = (a: number, b: number) => a < b;
      const heap: number[] = [];
      for (const item of items) {
        heap.push(item);
        siftUp(heap, heap.length - 1, before);
      }
      const popped: number[] = [];
      while (heap.length > 0) {
        popped.push(heap[0] as number);
        const last = heap.pop() as number;
        if (heap.length === 0) break;
        heap[0] = last;
        siftDown(heap, 0, before);
      }
      expect(popped).toEqual([...items].sort((a, b) => a - b));
    }),
  );
});

test("siftDown over the lower half orders an array into a heap", () => {
  fc.assert(
    fc.property(fc.array(fc.integer(), { maxLength: 100 }), (items) => {
      const heap = [...items];
      const before = (a: number, b: number) => a < b;
      for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, before);
      for (let i = 1; i < heap.length; i++)
        expect(before(heap[i] as number, heap[(i - 1) >> 1] as number)).toBe(false);
    }),
  );
});
