import { describe, expect, test } from "bun:test";
import type { RatedRow } from "../../lib/billing/compare/rated-csv.ts";
import type { SyncResult } from "../../lib/billing/reporting/sync/sync-run.ts";
import type { OracleResource } from "../../lib/billing/simulator/oracle.ts";
import { octoberOracle } from "../simulator/october-oracle.ts";
import { type BilledMembers, billedMembers, syncChecks } from "./sync-checks.ts";
import { membersFor, type SyncSeen } from "./sync-stage.ts";

const from = "2026-10-01T00:00:00.000Z";
const to = "2026-11-01T00:00:00.000Z";
const resource = (
  type: string,
  id: string,
  spans: [string, string, string][],
  marked = false,
): OracleResource => ({
  resource_type: type,
  resource_id: id,
  workload: "steady",
  intervals: spans.map(([a, b, state]) => ({ from: a, to: b, state, project_id: "p", size: {} })),
  faults: marked ? ["missing-create"] : [],
});
const oracle = octoberOracle(
  [
    resource("instance", "i-1", [[from, to, "active"]], true),
    resource("volume", "v-1", [[from, to, "in-use"]], true),
    resource("volume", "v-2", [[from, "2026-10-03T00:00:00.000Z", "available"]]),
    resource("loadbalancer", "lb-1", [
      ["2026-10-02T00:00:00.000Z", "2026-10-16T00:00:00.000Z", "active"],
      ["2026-10-16T00:00:00.000Z", to, "active"],
    ]),
    resource("loadbalancer", "lb-2", [["2026-10-02T00:00:00.000Z", "2026-10-16T01:00:00.000Z", "active"]]),
    resource("loadbalancer", "lb-3", [["2026-10-15T00:00:00.000Z", to, "active"]]),
  ],
  ["missing-create"],
);

const result = (at: string, written: Record<string, [number, number, number]>): SyncResult => {
  const types = Object.entries(written).map(([resource_type, [created, updated, deleted]]) => ({
    resource_type,
    observed: 0,
    unchanged: 0,
    created,
    updated,
    deleted,
    deferred: 0,
    settling: 0,
  }));
  const total = (i: 0 | 1 | 2) => Object.values(written).reduce((n, w) => n + w[i], 0);
  return {
    run_id: "r",
    cloud: "cloud-1",
    status: "succeeded",
    at,
    started_at: at,
    finished_at: at,
    observed: 0,
    unchanged: 0,
    created: total(0),
    updated: total(1),
    deleted: total(2),
    deferred: 0,
    settling: 0,
    accepted: total(0) + total(1) + total(2),
    duplicates: 0,
    rejected: 0,
    size_names: 3,
    resource_types: types,
  };
};

const row = (id: string, dimension: string, amount: string): RatedRow =>
  ({ cloud: "cloud-1", resource_type: "loadbalancer", resource_id: id, dimension, amount }) as RatedRow;

describe("membersFor", () => {
  test("the load balancers active without a break over the span, sized by their place in id order", () => {
    const at = Date.parse("2026-10-15T12:00:00.000Z");
    expect(membersFor(oracle, at, Date.parse("2026-10-16T12:00:00.000Z"))).toEqual([
      { resource_id: "lb-1", listeners: 1, pools: 1 },
      { resource_id: "lb-3", listeners: 2, pools: 2 },
    ]);
  });
});

describe("syncChecks", () => {
  const seen = (over: Partial<SyncSeen & { billed: BilledMembers }> = {}) => ({
    repair: result(from, { instance: [1, 0, 0], volume: [1, 1, 0] }),
    members: [{ resource_id: "lb-1", listeners: 1, pools: 1, at: "2026-10-15T12:00:00.000Z" }],
    book: result("2026-10-15T14:00:00.000Z", { loadbalancer: [0, 1, 0] }),
    again: result("2026-10-15T14:02:00.000Z", {}),
    oraclePath: "month/oracle-booked.json",
    billed: billedMembers([
      row("lb-1", "listeners", "1.20"),
      row("lb-1", "pools", "0.80"),
      row("lb-1", "hours", "9"),
    ]),
    ...over,
  });
  const failing = (s: ReturnType<typeof seen>) =>
    syncChecks(s, oracle)
      .filter((c) => c.status === "fail")
      .map((c) => c.text.split(" ").slice(0, 4).join(" "));

  test("a month repaired and booked as planned passes every check", () => {
    expect(seen().billed).toEqual({ resources: ["lb-1"], amount: "2.00" });
    expect(failing(seen())).toEqual([]);
  });

  test("a repair that missed a marked resource, a booking that wrote more, a last sync that wrote, a bill without members each fail", () => {
    expect(
      failing(
        seen({
          repair: result(from, { instance: [1, 0, 0] }),
          book: result("2026-10-15T14:00:00.000Z", { loadbalancer: [0, 1, 0], instance: [0, 1, 0] }),
          again: result("2026-10-15T14:02:00.000Z", { volume: [0, 1, 0] }),
          billed: billedMembers([row("lb-1", "hours", "9")]),
        }),
      ),
    ).toEqual([
      "the first sync (2026-10-01T00:00:00.000Z)",
      "the sync at 2026-10-15T14:00:00.000Z",
      "a sync again at",
      "the engine bills listeners",
    ]);
  });
});
