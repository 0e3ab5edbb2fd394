import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { InventoryEntry } from "../chassis-inventory.ts";
import { silenceState } from "./alert-engine.ts";
import { readAlertQuery, readRuleChange, readSilence } from "./alert-requests.ts";
import { builtinRules, type ClusterState, effectiveRule, findConditions } from "./alert-rules.ts";

const rules = new Map(builtinRules.map((d) => [d.name, effectiveRule(d, undefined)]));
const entry = (name: string, sync: InventoryEntry["sync_status"], lagMs: number | null): InventoryEntry =>
  ({ name, sync_status: sync, lag_ms: lagMs, nb_cfg: 4, global_nb_cfg: 5 }) as InventoryEntry;

const base: ClusterState = {
  cluster: "east",
  nowMs: 100_000,
  suspended: false,
  inventory: [],
  switches: [],
  databases: [
    { database: "nb", authoritative: true, state: "synced", last_error: null },
    { database: "sb", authoritative: true, state: "synced", last_error: null },
  ],
  raft: [],
  generations: [],
  chassisReportsEnabled: true,
  logicalSwitchPorts: [],
  portBindings: [],
};
const found = (state: Partial<ClusterState>, r = rules) =>
  findConditions({ ...base, ...state }, r).map((c) => [c.rule, c.subject]);

describe("findConditions", () => {
  test("a healthy cluster raises nothing", () => {
    expect(found({ inventory: [entry("a", "in_sync", 0)] })).toEqual([]);
  });

  test("each rule finds its own condition", () => {
    expect(
      found({
        inventory: [
          entry("a", "stale", 90_000),
          entry("b", "no_private_row", null),
          entry("c", "lagging", 12_000),
          entry("d", "lagging", 3_000),
        ],
        switches: [
          { system_id: "a", connected: false },
          { system_id: "gone", connected: true },
        ],
        databases: [
          { database: "nb", authoritative: false, state: "waiting", last_error: "connection closed" },
          { database: "sb", authoritative: true, state: "synced", last_error: null },
        ],
        raft: [{ database: "sb", state: "no_leader", reachable: 1, members: 3 } as never],
        generations: [{ nb_cfg: 5, started_at: 60_000, sb_at: 60_010, hv_at: null, chassis: { c: 60_100 } }],
        logicalSwitchPorts: [
          { _uuid: "1", name: "p1", type: "", enabled: null },
          { _uuid: "2", name: "p2", type: "", enabled: false },
          { _uuid: "3", name: "p3", type: "router", enabled: null },
          { _uuid: "4", name: "p4", type: "", enabled: true },
        ],
        portBindings: [
          { _uuid: "b4", logical_port: "p4", chassis: "x" },
          { _uuid: "b1", logical_port: "p1", chassis: null },
        ],
      }),
    ).toEqual([
      ["chassis_down", "a"],
      ["chassis_down", "b"],
      ["chassis_down", "gone"],
      ["chassis_lagging", "c"],
      ["ports_unbound", "ports"],
      ["propagation_slow", "propagation"],
      ["stale_cache", "nb"],
      ["raft_no_leader", "sb"],
      ["chassis_switch_unreachable", "a"],
    ]);
  });

  test("disabled rules, a loaded snapshot and switched-off chassis reports stay quiet", () => {
    const state = { inventory: [entry("a", "stale", 90_000)] };
    const off = new Map(rules);
    off.set("chassis_down", effectiveRule(builtinRules[0] as never, { enabled: false }));
    expect(found(state, off)).toEqual([]);
    expect(found({ ...state, suspended: true })).toEqual([]);
    const slow = {
      inventory: [entry("a", "in_sync", 0)],
      generations: [{ nb_cfg: 5, started_at: 0, sb_at: null, hv_at: null, chassis: {} }],
    };
    expect(found(slow)).toEqual([["propagation_slow", "propagation"]]);
    expect(found({ ...slow, chassisReportsEnabled: false })).toEqual([]);
  });
});

describe("alert requests", () => {
  const lagging = rules.get("chassis_lagging");
  if (lagging === undefined) throw new Error("rule");

  test("rule changes: durations, severities, null back to the default", () => {
    expect(
      readRuleChange({ enabled: false, severity: "critical", for: "1m", threshold: "1h30m" }, lagging, {}),
    ).toEqual({
      enabled: false,
      severity: "critical",
      for_ms: 60_000,
      threshold_ms: 5_400_000,
    });
    expect(readRuleChange({ severity: null }, lagging, { severity: "info", for_ms: 5 })).toEqual({
      for_ms: 5,
    });
    expect(() => readRuleChange({ threshold: "1s" }, rules.get("stale_cache") as never, {})).toThrow(
      "threshold: not a member for rule stale_cache",
    );
    expect(() => readRuleChange({ severity: "loud", for: "soon" }, lagging, {})).toThrow(
      /severity: .*; for: takes a duration/,
    );
  });

  test("silences need a matcher, a comment and an end; the author is the caller unless named", () => {
    const context = {
      id: "s1",
      nowMs: Date.parse("2026-11-23T10:00:00Z"),
      rules: ["chassis_down"],
      clusters: ["east"],
      actor: "alice@ops",
    };
    expect(
      readSilence(
        { matchers: { rule: "chassis_down", subject: "c2" }, comment: "maintenance", duration: "2h" },
        context,
      ),
    ).toEqual({
      id: "s1",
      matchers: { rule: "chassis_down", subject: "c2" },
      comment: "maintenance",
      created_by: "alice@ops",
      created_at: "2026-11-23T10:00:00.000Z",
      starts_at: "2026-11-23T10:00:00.000Z",
      ends_at: "2026-11-23T12:00:00.000Z",
    });
    expect(
      readSilence(
        { matchers: { rule: "chassis_down" }, comment: "for bob", created_by: "bob", duration: "1h" },
        context,
      ).created_by,
    ).toBe("bob");
    expect(() => readSilence({ matchers: {}, comment: "" }, context)).toThrow(
      "invalid body: matchers: name at least one of rule, cluster, subject; comment: must be a non-empty string of at most 500 characters; duration or ends_at: required (a silence ends)",
    );
    expect(() =>
      readSilence(
        { matchers: { rule: "nope", cluster: "west" }, comment: "x", ends_at: "2020-01-01T00:00:00Z" },
        context,
      ),
    ).toThrow(/no rule "nope".*no cluster "west".*ends_at: must be after/);
  });

  test("a silence is pending before its start, active until its end, then expired", () => {
    const silence = readSilence(
      {
        matchers: { rule: "chassis_down" },
        comment: "window",
        starts_at: "2026-11-23T11:00:00Z",
        duration: "1h",
      },
      {
        id: "s",
        nowMs: Date.parse("2026-11-23T10:00:00Z"),
        rules: ["chassis_down"],
        clusters: [],
        actor: "a",
      },
    );
    expect(
      ["10:59:59.999", "11:00:00.000", "11:59:59.999", "12:00:00.000"].map((t) =>
        silenceState(silence, `2026-11-23T${t}Z`),
      ),
    ).toEqual(["pending", "active", "active", "expired"]);
  });

  test("any body or query is read or refused as a validation error", () => {
    const context = { id: "s", nowMs: 0, rules: ["chassis_down"], clusters: ["east"], actor: "anonymous" };
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.dictionary(fc.constantFrom("silenced", "cluster", "severity", "x"), fc.string()),
        (body, query) => {
          for (const read of [
            () => readSilence(body, context),
            () => readRuleChange(body, lagging, {}),
            () => readAlertQuery(query),
          ]) {
            try {
              read();
            } catch (error) {
              expect(error).toBeInstanceOf(ValidationError);
            }
          }
        },
      ),
    );
  });
});
