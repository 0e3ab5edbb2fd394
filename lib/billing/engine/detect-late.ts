import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import type { Period } from "../../foundation/time/period.ts";
import { finalizedChain } from "./run-lookup.ts";

const canonical = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One resource with late events. */
export interface LateResource {
  cloud: string;
  platform: string;
  resource_type: string;
  resource_id: string;
  late_events: number;
  last_received: string;
}

/** What `detect-late --json` prints: the run compared with, when it read the month, what came later. */
export interface LateReport {
  period: string;
  run_id: string;
  read_at: string;
  resources: LateResource[];
}

/** The lines `detect-late` prints. */
export function lateLines(report: LateReport): string[] {
  const lines = [`run ${report.run_id} read ${report.period} at ${report.read_at}`];
  if (report.resources.length === 0) return [...lines, "no events arrived later"];
  for (const r of report.resources) {
    lines.push(
      `${r.cloud}/${r.platform}/${r.resource_type}/${r.resource_id}: ${r.late_events} late events, last received ${r.last_received}`,
    );
  }
  lines.push(`book them with correct --period ${report.period}`);
  return lines;
}

/**
 * `detect-late --period` (spec 2): reads and changes nothing. A late event is dated inside the month and
 * was received after the finalized run read it. Prints the run and its read instant, one line per
 * resource with late events (`<cloud>/<platform>/<resource_type>/<resource_id>: <n> late events, last
 * received <instant>`) and the hint to book them, or `no events arrived later`. The run compared with
 * is the last of the finalized chain: once a correction is finalized, it is that correction (spec 2).
 */
export async function detectLate(engine: Sql, reporting: Sql, period: Period): Promise<LateReport> {
  const finalized = (await finalizedChain(engine, period.name)).at(-1);
  if (finalized === undefined) {
    throw new UsageError(
      `${period.name} has no finalized run: events are late only against a finalized run; run the month with run --period ${period.name} and close it with finalize --period ${period.name}`,
    );
  }
  const readAt = finalized.read_at as string;
  const late = await reporting.unsafe<
    { cloud: string; platform: string; resource_type: string; resource_id: string; n: number; last: string }[]
  >(
    `select cloud, platform, resource_type, resource_id, count(*)::int as n, ${canonical("max(received_at)")} as last
     from events where timestamp >= $1::timestamptz and timestamp < $2::timestamptz and received_at > $3::timestamptz
     group by cloud, platform, resource_type, resource_id order by cloud, platform, resource_type, resource_id`,
    [period.from, period.to, readAt],
  );
  return {
    period: period.name,
    run_id: finalized.id,
    read_at: readAt,
    resources: late.map((r) => ({
      cloud: r.cloud,
      platform: r.platform,
      resource_type: r.resource_type,
      resource_id: r.resource_id,
      late_events: r.n,
      last_received: r.last,
    })),
  };
}
