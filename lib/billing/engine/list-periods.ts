import type { Sql } from "postgres";

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
  const rows = await sql<
    {
      period: string;
      finalized: string | null;
      finalized_at: string | null;
      latest: string;
      status: string;
    }[]
  >`
    select period,
      (select id::text from runs f where f.period = r.period and f.kind = 'regular' and f.status = 'finalized') as finalized,
      (select to_char(f.finalized_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') from runs f
        where f.period = r.period and f.kind = 'regular' and f.status = 'finalized') as finalized_at,
      (array_agg(id::text order by started_at desc, id desc))[1] as latest,
      (array_agg(status order by started_at desc, id desc))[1] as status
    from runs r group by period order by period`;
  return rows.map(
    (r): PeriodState =>
      r.finalized !== null
        ? {
            period: r.period,
            status: "finalized",
            finalized_run: r.finalized,
            finalized_at: r.finalized_at ?? "",
          }
        : { period: r.period, status: "open", latest_run: r.latest, latest_status: r.status },
  );
}
