import { expect, test } from "bun:test";
import { HealthMonitor } from "./health-monitor.ts";

test("readiness follows the check; liveness fails only after the threshold", async () => {
  let up = true;
  let clock = 0;
  const monitor = new HealthMonitor(
    async () => {
      if (!up) throw new Error("down");
    },
    { thresholdMs: 600_000, now: () => clock },
  );
  expect(await monitor.ready()).toBe(true);
  up = false;
  expect(await monitor.ready()).toBe(false);
  clock = 600_000;
  expect(await monitor.ready()).toBe(false);
  expect(monitor.live()).toBe(true);
  clock = 600_001;
  expect(monitor.live()).toBe(false);
  up = true;
  expect(await monitor.ready()).toBe(true);
  expect(monitor.live()).toBe(true);
});

test("a check that hangs counts as not ready", async () => {
  const monitor = new HealthMonitor(() => new Promise(() => {}), { thresholdMs: 1000, checkTimeoutMs: 20 });
  expect(await monitor.ready()).toBe(false);
});
