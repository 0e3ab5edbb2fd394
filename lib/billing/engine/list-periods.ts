import type { Sql } from "postgres";
import { periodSummaries } from "./store/runs.ts";

/** A period with a run: what `periods list --json` prints, one per period. */
export type PeriodState =
  | { period: string; status: "finalized"; finalized_run: string; finalized_at: string }
  | { period: string; status: "open"; latest_run: string; latest_status: string };

/** The lines `periods list` prints. */
export function periodLines(periods: readonly PeriodState[]): string[] {
  return periods.map((p) =>
    p.status === "finalized"
      ? `${p.period} finalized finalized_run=${p.finalized_run} finalized_at=${p.finalized_at}`
      : `${p.period} open latest_run=${p.latest_run} status=${p.latest_status}`,
  );
}

/**
 * `periods list`: one line per period with a run, in period order. A finalized period reads
 * `<period> finalized finalized_run=<id> finalized_at=<instant>` (the regular run, also once a
 * correction is finalized); any other `<period> open latest_run=<id> status=<status>` (decision 408).
 */
export async function listPeriods(sql: Sql): Promise<PeriodState[]> {
  return (await periodSummaries(sql)).map(
    (p): PeriodState =>
      p.finalized !== null
        ? {
            period: p.period,
            status: "finalized",
            finalized_run: p.finalized.id,
            finalized_at: p.finalized.at,
          }
        : { period: p.period, status: "open", latest_run: p.latest.id, latest_status: p.latest.status },
  );
}
