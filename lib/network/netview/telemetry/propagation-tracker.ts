/**
 * How each configuration generation travelled (decision 359): NB_Global.nb_cfg starts a generation
 * (at its `nb_cfg_timestamp`, when ovn-northd saw it), `sb_cfg` and `hv_cfg` say when the SB and the
 * last chassis reached it, and each Chassis_Private's `nb_cfg_timestamp` when that chassis did. The
 * tracker keeps the last generations from the caches' changes (no extra connection); a chassis that
 * jumps several generations reached each of them at that moment.
 */
import type { Row } from "../../ovsdb/datum.ts";
import type { Cluster } from "../cluster.ts";

export interface Generation {
  nb_cfg: number;
  /** Milliseconds since the epoch. */
  started_at: number;
  sb_at: number | null;
  hv_at: number | null;
  chassis: Record<string, number>;
}

const num = (v: unknown) => (typeof v === "number" ? v : 0);

/** Pure steps over the generation list (oldest first), bounded to `max`. */
export function observeNbGlobal(gens: Generation[], row: Row, nowMs: number, max: number): Generation[] {
  const nbCfg = num(row.nb_cfg);
  const at = (ts: unknown) => (num(ts) > 0 ? num(ts) : nowMs);
  let next = gens;
  const last = next[next.length - 1];
  if (last === undefined || nbCfg > last.nb_cfg) {
    next = [
      ...next,
      { nb_cfg: nbCfg, started_at: at(row.nb_cfg_timestamp), sb_at: null, hv_at: null, chassis: {} },
    ];
  } else if (nbCfg < last.nb_cfg) {
    // The NB went back (restored from a backup, or another database): start over from here.
    next = [{ nb_cfg: nbCfg, started_at: at(row.nb_cfg_timestamp), sb_at: null, hv_at: null, chassis: {} }];
  }
  const sbCfg = num(row.sb_cfg);
  const hvCfg = num(row.hv_cfg);
  next = next.map((g) => ({
    ...g,
    sb_at: g.sb_at ?? (g.nb_cfg <= sbCfg ? at(row.sb_cfg_timestamp) : null),
    hv_at: g.hv_at ?? (g.nb_cfg <= hvCfg ? at(row.hv_cfg_timestamp) : null),
  }));
  return next.slice(Math.max(0, next.length - max));
}

export function observeChassis(gens: Generation[], row: Row, nowMs: number): Generation[] {
  const name = typeof row.name === "string" ? row.name : "";
  const nbCfg = num(row.nb_cfg);
  const at = num(row.nb_cfg_timestamp) > 0 ? num(row.nb_cfg_timestamp) : nowMs;
  return gens.map((g) =>
    g.nb_cfg <= nbCfg && g.chassis[name] === undefined ? { ...g, chassis: { ...g.chassis, [name]: at } } : g,
  );
}

export class PropagationTracker {
  private gens: Generation[] = [];
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly options: { max?: number; now?: () => number } = {},
  ) {}

  get generations(): readonly Generation[] {
    return this.gens;
  }

  start(): void {
    const now = this.options.now ?? Date.now;
    const max = this.options.max ?? 100;
    const seed = () => {
      for (const row of this.cluster.nb.cache.rows("NB_Global"))
        this.gens = observeNbGlobal(this.gens, row, now(), max);
      for (const row of this.cluster.sb.cache.rows("Chassis_Private"))
        this.gens = observeChassis(this.gens, row, now());
    };
    seed();
    this.stops.push(
      this.cluster.nb.cache.subscribe((changes) => {
        if (this.cluster.suspended) return;
        for (const c of changes)
          if (c.table === "NB_Global" && c.new !== undefined)
            this.gens = observeNbGlobal(this.gens, c.new, now(), max);
      }),
      this.cluster.sb.cache.subscribe((changes) => {
        if (this.cluster.suspended) return;
        for (const c of changes)
          if (c.table === "Chassis_Private" && c.new !== undefined)
            this.gens = observeChassis(this.gens, c.new, now());
      }),
    );
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}

export interface TimelineEntry {
  nb_cfg: number;
  started_at: string;
  sb_ms: number | null;
  hv_ms: number | null;
  /** Every chassis that reached it, slowest first. */
  chassis: { name: string; ms: number }[];
}

/** The newest `limit` generations, newest first. */
export function timeline(gens: readonly Generation[], limit: number): TimelineEntry[] {
  return gens
    .slice(-limit)
    .reverse()
    .map((g) => ({
      nb_cfg: g.nb_cfg,
      started_at: new Date(g.started_at).toISOString(),
      sb_ms: g.sb_at === null ? null : Math.max(0, g.sb_at - g.started_at),
      hv_ms: g.hv_at === null ? null : Math.max(0, g.hv_at - g.started_at),
      chassis: Object.entries(g.chassis)
        .map(([name, at]) => ({ name, ms: Math.max(0, at - g.started_at) }))
        .sort((a, b) => b.ms - a.ms || (a.name < b.name ? -1 : 1)),
    }));
}

/** Chassis × generation: milliseconds from the generation's start to the chassis reaching it (null: not yet). */
export function heatmap(gens: readonly Generation[], chassisNames: readonly string[], limit: number) {
  const shown = gens.slice(-limit);
  const names = [...new Set([...chassisNames, ...shown.flatMap((g) => Object.keys(g.chassis))])].sort();
  return {
    generations: shown.map((g) => g.nb_cfg),
    chassis: names,
    cells: names.map((name) =>
      shown.map((g) => {
        const at = g.chassis[name];
        return at === undefined ? null : Math.max(0, at - g.started_at);
      }),
    ),
  };
}
