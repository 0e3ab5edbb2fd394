/**
 * Remembers when SB_Global.nb_cfg reached its current value, by watching the SB cache: the start of
 * the generation a lagging chassis is behind. A value already present at the first sync has no known
 * start (null).
 */
import type { DatabaseCache } from "../ovsdb/database-cache.ts";

export class NbCfgClock {
  private value: number | undefined;
  private sinceMs: number | null = null;

  constructor(sb: DatabaseCache, now: () => number = Date.now) {
    sb.subscribe((changes) => {
      for (const change of changes) {
        if (change.table !== "SB_Global" || change.new === undefined) continue;
        const nbCfg = change.new.nb_cfg;
        if (typeof nbCfg !== "number" || nbCfg === this.value) continue;
        // The first value seen starts no known generation; later ones start at their arrival.
        this.sinceMs = this.value === undefined && change.old === undefined ? null : now();
        this.value = nbCfg;
      }
    });
  }

  get generationSinceMs(): number | null {
    return this.sinceMs;
  }
}
