import type { Sql } from "postgres";
import { periodSummaries } from "./store/runs.ts";

/**
 * `periods list`: one line per period with a run, in period order. A finalized period reads
 * `<period> finalized finalized_run=<id> finalized_at=<instant>` (the regular run, also once a
 * correction is finalized); any other `<period> open latest_run=<id> status=<status>` (decision 408).
 */
export async function listPeriods(sql: Sql): Promise<string[]> {
  return (await periodSummaries(sql)).map((p) =>
    p.finalized !== null
      ? `${p.period} finalized finalized_run=${p.finalized.id} finalized_at=${p.finalized.at}`
      : `${p.period} open latest_run=${p.latest.id} status=${p.latest.status}`,
  );
}
