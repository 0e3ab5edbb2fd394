/**
 * The built-in alert rules (decision 360) and what each finds in a cluster's state. Pure: the inputs
 * are gathered by the engine; how long a condition must hold (`for`) is the engine's business.
 */
import type { Row } from "../../ovsdb/datum.ts";
import type { InventoryEntry } from "../chassis-inventory.ts";
import type { Generation } from "../telemetry/propagation-tracker.ts";
import type { RaftHealth } from "../telemetry/raft-probe.ts";

export type Severity = "info" | "warning" | "critical";
export const severities: readonly Severity[] = ["info", "warning", "critical"];

interface RuleDefinition {
  name: string;
  description: string;
  severity: Severity;
  /** How long the condition must hold before the alert fires. */
  for_ms: number;
  /** The rule's own threshold, for the rules that have one (null otherwise). */
  threshold_ms: number | null;
}

/** An operator's names and values carried by every alert of a rule (a team, a runbook), none built in. */
export type AlertLabels = Record<string, string>;

export interface RuleOverride {
  enabled?: boolean;
  severity?: Severity;
  for_ms?: number;
  threshold_ms?: number;
  labels?: AlertLabels;
}

export interface EffectiveRule extends RuleDefinition {
  enabled: boolean;
  labels: AlertLabels;
  /** The members changed from the built-in value (with `PUT /api/v1/alerts/rules/{name}`). */
  overridden: (keyof RuleOverride)[];
  defaults: {
    enabled: true;
    severity: Severity;
    for_ms: number;
    threshold_ms: number | null;
    labels: AlertLabels;
  };
}

export const builtinRules: readonly RuleDefinition[] = [
  {
    name: "chassis_down",
    description:
      "A chassis is out of sync beyond --chassis-stale-threshold, has no Chassis_Private row, or is in the management address file but not registered in the southbound",
    severity: "critical",
    for_ms: 0,
    threshold_ms: null,
  },
  {
    name: "chassis_lagging",
    description:
      "A chassis has been behind the current nb_cfg generation for longer than the threshold (but is not yet stale)",
    severity: "warning",
    for_ms: 0,
    threshold_ms: 10_000,
  },
  {
    name: "ports_unbound",
    description: 'Enabled VIF ports (logical switch ports of type "") that no chassis has bound',
    severity: "warning",
    for_ms: 60_000,
    threshold_ms: null,
  },
  {
    name: "raft_no_leader",
    description: "A clustered NB or SB database answers, but no connected member leads it",
    severity: "critical",
    for_ms: 10_000,
    threshold_ms: null,
  },
  {
    name: "propagation_slow",
    description: "The newest nb_cfg generation has not reached every chassis within the threshold",
    severity: "warning",
    for_ms: 0,
    threshold_ms: 30_000,
  },
  {
    name: "stale_cache",
    description: "netview's cache of a database is not authoritative (its session is lost and reconnecting)",
    severity: "warning",
    for_ms: 30_000,
    threshold_ms: null,
  },
  {
    name: "chassis_switch_unreachable",
    description: "A chassis switch database from the management address file cannot be reached",
    severity: "warning",
    for_ms: 30_000,
    threshold_ms: null,
  },
];

export function effectiveRule(definition: RuleDefinition, override: RuleOverride | undefined): EffectiveRule {
  const o = override ?? {};
  return {
    ...definition,
    enabled: o.enabled ?? true,
    severity: o.severity ?? definition.severity,
    for_ms: o.for_ms ?? definition.for_ms,
    threshold_ms: definition.threshold_ms === null ? null : (o.threshold_ms ?? definition.threshold_ms),
    labels: o.labels ?? {},
    overridden: (Object.keys(o) as (keyof RuleOverride)[]).sort(),
    defaults: {
      enabled: true,
      severity: definition.severity,
      for_ms: definition.for_ms,
      threshold_ms: definition.threshold_ms,
      labels: {},
    },
  };
}

export interface Condition {
  rule: string;
  cluster: string;
  /** What the alert is about within the cluster: a chassis, a database, `ports`, `propagation`. */
  subject: string;
  message: string;
}

/** Everything the rules read of one cluster. */
export interface ClusterState {
  cluster: string;
  nowMs: number;
  suspended: boolean;
  inventory: readonly InventoryEntry[];
  /** Chassis of the management address file, and whether their switch database is connected. */
  switches: readonly { system_id: string; connected: boolean }[];
  databases: readonly {
    database: "nb" | "sb";
    authoritative: boolean;
    state: string;
    last_error: string | null;
  }[];
  raft: readonly RaftHealth[];
  generations: readonly Generation[];
  chassisReportsEnabled: boolean;
  logicalSwitchPorts: readonly Row[];
  portBindings: readonly Row[];
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}s`;
const listed = (names: readonly string[], shown = 10) =>
  names.slice(0, shown).join(", ") + (names.length > shown ? ` and ${names.length - shown} more` : "");

/** The conditions every enabled rule finds in one cluster. */
export function findConditions(state: ClusterState, rules: ReadonlyMap<string, EffectiveRule>): Condition[] {
  const found: Condition[] = [];
  const on = (name: string) => {
    const rule = rules.get(name);
    return rule?.enabled === true ? rule : undefined;
  };
  const add = (rule: string, subject: string, message: string) =>
    found.push({ rule, cluster: state.cluster, subject, message });
  // A loaded snapshot is the past: its chassis and ports say nothing about now.
  if (!state.suspended) {
    if (on("chassis_down")) {
      const registered = new Set(state.inventory.map((e) => e.name));
      for (const e of state.inventory) {
        if (e.sync_status === "stale")
          add(
            "chassis_down",
            e.name,
            `chassis ${e.name} has been behind nb_cfg ${e.global_nb_cfg} for ${seconds(e.lag_ms ?? 0)} (at ${e.nb_cfg})`,
          );
        if (e.sync_status === "no_private_row")
          add(
            "chassis_down",
            e.name,
            `chassis ${e.name} has no Chassis_Private row: its ovn-controller never reported`,
          );
      }
      for (const s of state.switches) {
        if (!registered.has(s.system_id))
          add(
            "chassis_down",
            s.system_id,
            `chassis ${s.system_id} is in the management address file but not registered in the southbound`,
          );
      }
    }
    const lagging = on("chassis_lagging");
    if (lagging) {
      for (const e of state.inventory) {
        if (e.sync_status === "lagging" && (e.lag_ms ?? 0) >= (lagging.threshold_ms ?? 0)) {
          add(
            "chassis_lagging",
            e.name,
            `chassis ${e.name} has been behind nb_cfg ${e.global_nb_cfg} for ${seconds(e.lag_ms ?? 0)} (at ${e.nb_cfg})`,
          );
        }
      }
    }
    if (on("ports_unbound")) {
      const bound = new Set(
        state.portBindings.filter((b) => typeof b.chassis === "string").map((b) => String(b.logical_port)),
      );
      const unbound = state.logicalSwitchPorts
        .filter((p) => p.type === "" && p.enabled !== false && !bound.has(String(p.name)))
        .map((p) => String(p.name))
        .sort();
      if (unbound.length > 0)
        add(
          "ports_unbound",
          "ports",
          `${unbound.length} VIF ports are bound to no chassis: ${listed(unbound)}`,
        );
    }
    const slow = on("propagation_slow");
    const newest = state.generations[state.generations.length - 1];
    if (
      slow &&
      state.chassisReportsEnabled &&
      newest !== undefined &&
      newest.hv_at === null &&
      state.inventory.length > 0
    ) {
      const waited = state.nowMs - newest.started_at;
      if (waited >= (slow.threshold_ms ?? 0)) {
        const missing = state.inventory
          .filter((e) => newest.chassis[e.name] === undefined)
          .map((e) => e.name);
        add(
          "propagation_slow",
          "propagation",
          `nb_cfg ${newest.nb_cfg} has not reached every chassis after ${seconds(waited)}; missing: ${listed(missing)}`,
        );
      }
    }
    if (on("stale_cache")) {
      for (const db of state.databases) {
        if (!db.authoritative) {
          add(
            "stale_cache",
            db.database,
            `the ${db.database === "nb" ? "northbound" : "southbound"} cache is not authoritative (${db.state}${db.last_error === null ? "" : `: ${db.last_error}`})`,
          );
        }
      }
    }
  }
  if (on("raft_no_leader")) {
    for (const h of state.raft)
      if (h.state === "no_leader")
        add(
          "raft_no_leader",
          h.database,
          `no connected member of the ${h.database} cluster leads (${h.reachable} of ${h.members} answer)`,
        );
  }
  if (on("chassis_switch_unreachable")) {
    for (const s of state.switches)
      if (!s.connected)
        add(
          "chassis_switch_unreachable",
          s.system_id,
          `the switch database of chassis ${s.system_id} cannot be reached`,
        );
  }
  return found;
}
