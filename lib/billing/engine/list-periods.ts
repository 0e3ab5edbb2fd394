import type { Sql } from "postgres";

/**
 * `periods list`: one line per period with a run, in period order. A finalized period reads
 * `<period> finalized finalized_run=<id> finalized_at=<instant>` (the regular run, also once a
 * correction is finalized); any other `<period> open latest_run=<id> status=<status>` (decision 408).
 */
export async function listPeriods(sql: Sql): Promise<string[]> {
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
  return rows.map((r) =>
    r.finalized !== null
      ? `${r.period} finalized finalized_run=${r.finalized} finalized_at=${r.finalized_at}`
      : `${r.period} open latest_run=${r.latest} status=${r.status}`,
  );
}
