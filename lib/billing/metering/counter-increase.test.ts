import { expect, test } from "bun:test";
import { counterIncrease } from "./counter-increase.ts";

const samples = { timestamps: [10, 20, 30, 40, 50], values: [100, 150, 20, 70, 70] };

test("from the last sample at or before the start to the last at or before the end", () => {
  expect(counterIncrease(samples, 10, 20)).toBe(50);
  expect(counterIncrease(samples, 15, 25)).toBe(50);
  expect(counterIncrease(samples, 40, 50)).toBe(0);
});

test("a drop is a reset to 0; a counter that starts inside the span started at 0", () => {
  expect(counterIncrease(samples, 20, 40)).toBe(20 + 50);
  expect(counterIncrease(samples, 0, 10)).toBe(100);
  expect(counterIncrease({ timestamps: [], values: [] }, 0, 100)).toBe(0);
});
