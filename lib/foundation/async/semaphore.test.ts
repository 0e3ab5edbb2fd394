import { expect, test } from "bun:test";
import { Semaphore } from "./semaphore.ts";

test("never runs more than the limit at once, and runs everything in arrival order", async () => {
  const gate = new Semaphore(2);
  let running = 0;
  let peak = 0;
  const started: number[] = [];
  await Promise.all(
    Array.from({ length: 7 }, (_, i) =>
      gate
        .run(async () => {
          started.push(i);
          running++;
          peak = Math.max(peak, running);
          await Bun.sleep(5);
          running--;
          if (i === 3) throw new Error("a failing task frees its slot");
        })
        .catch(() => {}),
    ),
  );
  expect(peak).toBe(2);
  expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  await expect(gate.run(async () => "after")).resolves.toBe("after");
});
