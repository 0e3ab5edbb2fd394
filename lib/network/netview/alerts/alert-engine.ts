/**
 * Evaluates the rules over every cluster once a second: a condition found starts pending, fires once
 * it has held for the rule's `for`, and resolves (is dropped) when no longer found. Silences hide an
 * alert from the default list; they never stop its evaluation. A rule change is read at once and
 * starts nothing afresh (decision 370): a firing alert keeps its `since` and `fired_at` and shows
 * its new severity and labels; a longer `for` than it has held puts it back to pending; a disabled
 * rule or a threshold its condition no longer passes resolves it at the next evaluation.
 */

import type { ClusterTelemetry } from "../telemetry/cluster-telemetry.ts";
import { raftHealth } from "../telemetry/raft-probe.ts";
import {
  type AlertLabels,
  builtinRules,
  type Condition,
  type EffectiveRule,
  effectiveRule,
  findConditions,
  type Severity,
} from "./alert-rules.ts";
import type { AlertStore, Silence } from "./alert-store.ts";

export interface Alert {
  id: string;
  rule: string;
  severity: Severity;
  labels: AlertLabels;
  cluster: string;
  subject: string;
  message: string;
  /** When the condition was first found. */
  since: string;
  fired_at: string;
  silenced: boolean;
  silenced_by: string[];
}

type SilenceState = "pending" | "active" | "expired";

export function silenceState(silence: Silence, nowIso: string): SilenceState {
  return nowIso < silence.starts_at ? "pending" : nowIso < silence.ends_at ? "active" : "expired";
}

export function silences(silence: Silence, alert: Pick<Alert, "rule" | "cluster" | "subject">): boolean {
  const m = silence.matchers;
  return (
    (m.rule === undefined || m.rule === alert.rule) &&
    (m.cluster === undefined || m.cluster === alert.cluster) &&
    (m.subject === undefined || m.subject === alert.subject)
  );
}

interface Tracked {
  condition: Condition;
  sinceMs: number;
  firedMs: number | null;
}

export class AlertEngine {
  private readonly tracked = new Map<string, Tracked>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private rulesCache: Map<string, EffectiveRule> | undefined;

  constructor(
    private readonly telemetry: ClusterTelemetry,
    readonly store: AlertStore,
    private readonly intervalMs = 1000,
  ) {}

  rules(): Map<string, EffectiveRule> {
    if (this.rulesCache === undefined) {
      const overrides = this.store.overrides();
      this.rulesCache = new Map(builtinRules.map((d) => [d.name, effectiveRule(d, overrides.get(d.name))]));
    }
    return this.rulesCache;
  }

  /** After a rule changed: re-read the overrides and evaluate at once, keeping what is tracked. */
  rulesChanged(): void {
    this.rulesCache = undefined;
    this.evaluate();
  }

  start(): void {
    this.evaluate();
    this.timer = setInterval(() => this.evaluate(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  evaluate(): void {
    const now = this.telemetry.nowMs();
    const rules = this.rules();
    const seen = new Set<string>();
    for (const cluster of this.telemetry.clusters.all) {
      const state = {
        cluster: cluster.name,
        nowMs: now,
        suspended: cluster.suspended,
        inventory: this.telemetry.inventory(cluster),
        switches: cluster.fleet?.status() ?? [],
        databases: [
          {
            database: "nb" as const,
            authoritative: cluster.nb.cache.authoritative,
            state: cluster.nb.state,
            last_error: cluster.nb.lastError ?? null,
          },
          {
            database: "sb" as const,
            authoritative: cluster.sb.cache.authoritative,
            state: cluster.sb.state,
            last_error: cluster.sb.lastError ?? null,
          },
        ],
        raft: this.telemetry.raftStatus(cluster).map(raftHealth),
        generations: this.telemetry.generations(cluster),
        chassisReportsEnabled:
          ((cluster.sb.cache.rows("SB_Global")[0]?.options ?? {}) as Record<string, string>)
            .enable_chassis_nb_cfg_update !== "false",
        logicalSwitchPorts: cluster.nb.cache.rows("Logical_Switch_Port"),
        portBindings: cluster.sb.cache.rows("Port_Binding"),
      };
      for (const condition of findConditions(state, rules)) {
        const key = `${condition.rule}/${condition.cluster}/${condition.subject}`;
        seen.add(key);
        const previous = this.tracked.get(key);
        const sinceMs = previous?.sinceMs ?? now;
        const rule = rules.get(condition.rule) as EffectiveRule;
        const firedMs = now - sinceMs >= rule.for_ms ? (previous?.firedMs ?? now) : null;
        this.tracked.set(key, { condition, sinceMs, firedMs });
      }
    }
    for (const key of this.tracked.keys()) if (!seen.has(key)) this.tracked.delete(key);
  }

  /** Firing alerts, most severe first, each with the silences that hide it. */
  alerts(): Alert[] {
    const nowIso = new Date(this.telemetry.nowMs()).toISOString();
    const active = this.store.silences().filter((s) => silenceState(s, nowIso) === "active");
    const rules = this.rules();
    const rank = (s: Severity) => ["critical", "warning", "info"].indexOf(s);
    const alerts: Alert[] = [];
    for (const [id, t] of this.tracked) {
      if (t.firedMs === null) continue;
      const rule = rules.get(t.condition.rule) as EffectiveRule;
      const by = active.filter((s) => silences(s, t.condition)).map((s) => s.id);
      alerts.push({
        id,
        ...t.condition,
        severity: rule.severity,
        labels: rule.labels,
        since: new Date(t.sinceMs).toISOString(),
        fired_at: new Date(t.firedMs).toISOString(),
        silenced: by.length > 0,
        silenced_by: by,
      });
    }
    return alerts.sort((a, b) => rank(a.severity) - rank(b.severity) || (a.id < b.id ? -1 : 1));
  }
}
