import { describe, expect, test } from "bun:test";
import { clusterChecks } from "./cluster-checks.ts";
import { type FaultSeen, faultPlan } from "./cluster-faults.ts";
import type { WorkerKillSeen } from "./worker-kill.ts";

describe("faultPlan", () => {
  test("each fault once per seed, each in its own fifth of the month from a tenth on, the same for the same seed", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const plan = faultPlan(seed);
      expect(plan.map((f) => f.kind).sort()).toEqual(["collector", "postgres", "rabbitmq", "reporting"]);
      plan.forEach((f, i) => {
        expect(f.mark).toBeGreaterThanOrEqual(0.1 + 0.2 * i);
        expect(f.mark).toBeLessThan(0.2 + 0.2 * i);
        expect([0, 1]).toContain(f.pick);
      });
      expect(faultPlan(seed)).toEqual(plan);
    }
  });

  test("the seeds order the faults differently", () => {
    const orders = new Set(
      Array.from({ length: 20 }, (_, i) =>
        faultPlan(i + 1)
          .map((f) => f.kind)
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(5);
  });
});

const fault = (over: Partial<FaultSeen>): FaultSeen => ({
  kind: "postgres",
  target: "the PostgreSQL primary pg1",
  at: "2026-10-05T06:21:00.000Z",
  recoveredMs: 10_100,
  recovery: "pg2 primary, HAProxy routing to it",
  restartedMs: 21_600,
  retried: { "503": 2 },
  redelivered: 0,
  ...over,
});

const once = { expected: 10, stored: 10, missing: [], extra: [] };
const kinds = ["postgres", "rabbitmq", "reporting", "collector"] as const;

describe("clusterChecks", () => {
  test("names each fault with its recovery, what was retried and redelivered", () => {
    const checks = clusterChecks({ faults: [fault({})], exactlyOnce: once });
    expect(checks[0]).toEqual({
      status: "pass",
      text: "the PostgreSQL primary pg1 killed (SIGKILL) at 10-05 06:21: failover in 10.1 s (pg2 primary, HAProxy routing to it); posts retried: 503 ×2; 0 deliveries redelivered; back in 21.6 s",
      details: [],
    });
  });

  test("a post answered 500 or a fault that did not play as it should fails its check", () => {
    const [served500, problem] = clusterChecks({
      faults: [
        fault({ retried: { "500": 1, "503": 1 } }),
        fault({ problem: "pg1 is down after it came back" }),
      ],
      exactlyOnce: once,
    });
    expect([served500?.status, served500?.details, problem?.status, problem?.details]).toEqual([
      "fail",
      ["posts answered 500: 1 (a failover must answer 503)"],
      "fail",
      ["pg1 is down after it came back"],
    ]);
  });

  test("a lost or a foreign event fails the exactly-once check, and a worker kill that did not play fails", () => {
    const checks = clusterChecks({
      faults: kinds.map((kind) => fault({ kind })),
      exactlyOnce: { expected: 10, stored: 10, missing: ["a@1"], extra: ["b@2"] },
    });
    expect(checks.slice(4).map((c) => c.status)).toEqual(["pass", "fail", "fail"]);
    expect(checks[5]?.details).toEqual([
      "10 stored, 1 missing, 1 the month never sent",
      "missing a@1",
      "not the month's b@2",
    ]);
  });

  test("the worker kill: named with its timings and what the failed run kept; a problem fails it", () => {
    const kill: WorkerKillSeen = {
      worker: "shard 1/2 (pid 4242)",
      killedAfterMs: 1_700,
      failedInMs: 300,
      exit: 2,
      runId: "r1",
      status: "failed",
      rowsLeft: 0,
      workersLeft: 0,
      rerun: { runId: "r2", ms: 6_100 },
    };
    const [passed] = clusterChecks({ faults: [], exactlyOnce: once, workerKill: kill }).slice(-1);
    expect(passed).toEqual({
      status: "pass",
      text: "the worker of shard 1/2 (pid 4242) of `engine run --workers 2` killed (SIGKILL) while metering, 1.7 s after the run started: run r1 failed in 0.3 s (exit 2), 0 of its rows kept, 0 workers left; run again in 6.1 s: run r2 completed",
      details: [],
    });
    const problem = "the failed run is failed with 3 rows kept and 0 workers alive";
    const [failed] = clusterChecks({
      faults: [],
      exactlyOnce: once,
      workerKill: { ...kill, rowsLeft: 3, problem },
    }).slice(-1);
    expect([failed?.status, failed?.details]).toEqual(["fail", [problem]]);
  });
});
