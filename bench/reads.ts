/**
 * Read latency of the Reporting API on a large history: each query through the real server (its own
 * process, HTTP, bearer lookup, contract checks, JSON) beside the same query as plain SQL from this
 * process, in the same run, on the same database. Prints median and p99 of both and the p99 ratio
 * (aim: the API within 2x of the plain query).
 *
 *   bun bench/reads.ts [--events 1000000] [--runs 200]
 *
 * The history is the ingest bench's workload (400 projects over one month) laid down with COPY; the
 * projection is built by the real rebuild. The database is a private PostgreSQL from the harness.
 */
import { parseArgs } from "node:util";
import type { Sql } from "postgres";
import { copyEvents } from "../harness/reporting/copy-events.ts";
import { ingestWorkload } from "../harness/reporting/ingest-workload.ts";
import { startReportingProcess } from "../harness/reporting/reporting-process.ts";
import { startPostgres } from "../harness/services/postgres.ts";
import { issueApiToken } from "../lib/billing/reporting/auth/credential-store.ts";
import { openDatabase } from "../lib/billing/reporting/database.ts";
import { migrateReporting } from "../lib/billing/reporting/migrate.ts";
import { rebuildProjection } from "../lib/billing/reporting/projection/rebuild.ts";
import { eventStatsQuery } from "../lib/billing/reporting/reads/event-stats.ts";
import { maxStatsItems } from "../lib/billing/reporting/reads/stats-grouping.ts";

const { values } = parseArgs({
  options: { events: { type: "string", default: "1000000" }, runs: { type: "string", default: "200" } },
});
const total = Number(values.events);
const runs = Number(values.runs);

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Milliseconds of each of `runs` calls, after a few unmeasured warm-up calls. */
async function time(runs: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 5; i++) await call(i);
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    await call(i);
    out.push(performance.now() - began);
  }
  return out.sort((a, b) => a - b);
}

interface Case {
  name: string;
  runs: number;
  api: (i: number) => string;
  plain: (sql: Sql, i: number) => Promise<unknown>;
}

const pg = await startPostgres();
try {
  const url = await pg.createDatabase();
  await migrateReporting(url);
  const { sql, db, close } = openDatabase(url, { max: 2 });
  const events = ingestWorkload(total);
  let began = performance.now();
  await copyEvents(sql, events);
  const copySeconds = (performance.now() - began) / 1000;
  began = performance.now();
  // One rebuild call refolds at most 200,000 resources (decision 110): one call per type.
  const rebuilt = { resources: 0 };
  for (const resource_type of ["instance", "volume", "floating_ip", "image"]) {
    rebuilt.resources += (await rebuildProjection(sql, { resource_type })).resources;
  }
  const rebuildSeconds = (performance.now() - began) / 1000;
  await sql`vacuum analyze events`;
  await sql`vacuum analyze current_resources`;
  const projects = await sql<{ id: string; external_id: string }[]>`
    insert into projects (platform, cloud, external_id)
    select 'platform_a', 'bench-cloud', 'project-' || n from generate_series(0, 399) n
    returning id::text, external_id`;
  const { secret } = await issueApiToken(db, { role: "reader", actor: "bench" });
  // Instants spread over the month, so each list call starts somewhere else in the history.
  const instants = events
    .filter((_, i) => i % Math.max(1, Math.floor(events.length / 997)) === 0)
    .map((e) => e.timestamp);
  const at = (i: number) => instants[(i * 7919) % instants.length] as string;
  const project = (i: number) => projects[(i * 31) % projects.length] as { id: string; external_id: string };
  const monthFrom = "2026-10-01T00:00:00.000Z";
  const monthTo = "2026-11-01T00:00:00.000Z";

  const cases: Case[] = [
    {
      name: "events page (from, limit 100)",
      runs,
      api: (i) => `/api/v1/events?from=${at(i)}&limit=100`,
      plain: (
        s,
        i,
      ) => s`select event_id, timestamp::text, event_type, platform, cloud, resource_type, resource_id,
        project_id, source, payload, received_at::text from events
        where timestamp >= ${at(i)}::timestamptz order by events.timestamp, events.event_id limit 101`,
    },
    {
      name: "events page (project, limit 100)",
      runs,
      api: (i) => `/api/v1/events?cloud=bench-cloud&project_id=${project(i).external_id}&limit=100`,
      plain: (
        s,
        i,
      ) => s`select event_id, timestamp::text, event_type, platform, cloud, resource_type, resource_id,
        project_id, source, payload, received_at::text from events
        where cloud = 'bench-cloud' and project_id = ${project(i).external_id}
        order by events.timestamp, events.event_id limit 101`,
    },
    {
      name: "resources page (project, limit 100)",
      runs,
      api: (i) =>
        `/api/v1/resources?cloud=bench-cloud&project_id=${project(i).external_id}&status=all&limit=100`,
      plain: (s, i) => s`select cloud, resource_type, resource_id, platform, project_id, state, size,
        created_at::text, deleted_at::text, last_event_timestamp::text from current_resources
        where cloud = 'bench-cloud' and project_id = ${project(i).external_id}
        order by cloud, resource_type, resource_id limit 101`,
    },
    {
      name: "stats resources (all five)",
      runs: Math.max(20, Math.floor(runs / 4)),
      api: () => "/api/v1/stats/resources?group_by=cloud,resource_type,state,platform,project_id&status=all",
      plain: (
        s,
      ) => s`select cloud, resource_type, state, platform, project_id, count(*)::int from current_resources
        group by cloud, resource_type, state, platform, project_id limit 10001`,
    },
    {
      name: "stats events (month, 1d)",
      runs: Math.max(10, Math.floor(runs / 10)),
      api: () =>
        `/api/v1/stats/events?group_by=cloud,event_type,source&from=${monthFrom}&to=${monthTo}&interval=1d`,
      // The statement the route runs (decision 141), so the ratio is the API's own cost.
      plain: (s) =>
        eventStatsQuery(s, {
          from: monthFrom,
          to: monthTo,
          interval: "1d",
          scope: null,
          maxItems: maxStatsItems,
        }),
    },
    {
      name: "project summary (month)",
      runs: Math.max(20, Math.floor(runs / 4)),
      api: (i) => `/api/v1/projects/${project(i).id}/summary?from=${monthFrom}&to=${monthTo}`,
      plain: (s, i) => s`with held as (
          select distinct resource_type, resource_id from events
          where cloud = 'bench-cloud' and project_id = ${project(i).external_id} and timestamp < ${monthTo}::timestamptz
        )
        select e.resource_type, e.resource_id, e.event_id, e.timestamp::text, e.event_type, e.project_id,
          e.payload - 'provider' as payload
        from events e join held using (resource_type, resource_id)
        where e.cloud = 'bench-cloud' and e.timestamp < ${monthTo}::timestamptz`,
    },
  ];

  const server = await startReportingProcess({ SVC_REPORTING_DB_URL: url, SVC_METRICS_ENABLED: "false" });
  const results: string[] = [];
  try {
    for (const c of cases) {
      const api = await time(c.runs, async (i) => {
        const res = await fetch(`${server.base}${c.api(i)}`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      });
      const plain = await time(c.runs, (i) => c.plain(sql, i));
      const fmt = (xs: number[]) => `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.99).toFixed(1)} ms`;
      results.push(
        `${c.name.padEnd(38)} API ${fmt(api).padEnd(22)} SQL ${fmt(plain).padEnd(22)} p99 ratio ${(quantile(api, 0.99) / quantile(plain, 0.99)).toFixed(2)}`,
      );
    }
  } finally {
    const out = await server.stop();
    if (out.code !== 0) process.stderr.write(out.stderr + out.stdout);
    await close();
  }
  console.log(`events ${events.length}  resources ${rebuilt.resources}  projects ${projects.length}`);
  console.log(
    `laid down: COPY ${copySeconds.toFixed(1)} s, projection rebuild ${rebuildSeconds.toFixed(1)} s`,
  );
  console.log(`${"query".padEnd(38)} median / p99 (${runs} runs, fewer for stats and summary)`);
  for (const line of results) console.log(line);
} finally {
  await pg.stop();
}
