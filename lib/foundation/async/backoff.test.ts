import { expect, test } from "bun:test";
import fc from "fast-check";
import { backoffDelay } from "./backoff.ts";

test("backoff doubles to its cap, jitter only shortens it", () => {
  const policy = { initialMs: 250, maxMs: 8000 };
  expect([0, 1, 2, 5, 50].map((a) => backoffDelay(policy, a, 0))).toEqual([250, 500, 1000, 8000, 8000]);
  fc.assert(
    fc.property(fc.nat(100), fc.double({ min: 0, max: 0.999, noNaN: true }), (attempt, random) => {
      const delay = backoffDelay(policy, attempt, random);
      const base = backoffDelay(policy, attempt, 0);
      expect(delay).toBeLessThanOrEqual(base);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.75));
    }),
  );
});
