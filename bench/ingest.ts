/**
 * Ingest throughput: events per second through `POST /api/v1/events` (batches of 1000, projection
 * included, the real server in its own process) against a raw COPY of the same rows into the same
 * table, in the same run, on the same database. Prints both and the ratio.
 *
 * On a shared machine wall time follows the neighbours' load, so the bench also counts the CPU seconds
 * each side spent (the database's processes for COPY; the server's and the database's for the API)
 * and prints the ratio those give: what the wall ratio would be on an otherwise idle machine where the
 * work is CPU-bound. Processes that exit within a phase (autovacuum workers) are not counted.
 *
 *   bun bench/ingest.ts [--events 100000] [--clients 2]
 *
 * The database is a private PostgreSQL from the harness, or `SVC_TEST_PG_URL`.
 */
import { parseArgs } from "node:util";
import { cpuMeter } from "../harness/process/process-table.ts";
import { workloadCsv } from "../harness/reporting/copy-events.ts";
import { ingestWorkload, type WorkloadEvent } from "../harness/reporting/ingest-workload.ts";
import { startReportingProcess } from "../harness/reporting/reporting-process.ts";
import { type PostgresService, startPostgres } from "../harness/services/postgres.ts";
import { issueIngestCredential } from "../lib/billing/reporting/auth/credential-store.ts";
import { openDatabase } from "../lib/billing/reporting/database.ts";
import { copyEventsCsv } from "../lib/billing/reporting/ingest/events-copy.ts";
import { migrateReporting } from "../lib/billing/reporting/migrate.ts";

const { values } = parseArgs({
  options: { events: { type: "string", default: "100000" }, clients: { type: "string", default: "2" } },
});
const total = Number(values.events);
const clients = Number(values.clients);
const batchSize = 1000;

async function copyBaseline(pg: PostgresService, url: string, events: readonly WorkloadEvent[]) {
  const { sql, close } = openDatabase(url, { max: 1 });
  try {
    const text = workloadCsv(events);
    await sql`select 1`;
    const cpu = cpuMeter(() => pg.processes());
    const began = performance.now();
    await copyEventsCsv(sql, text);
    const seconds = (performance.now() - began) / 1000;
    const cpuSeconds = cpu.stop();
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from events`;
    if (row?.n !== events.length) throw new Error(`COPY stored ${row?.n} of ${events.length}`);
    await sql`truncate events`;
    return { seconds, cpuSeconds };
  } finally {
    await close();
  }
}

async function throughApi(pg: PostgresService, url: string, events: readonly WorkloadEvent[]) {
  const { db, sql, close } = openDatabase(url, { max: 1 });
  const { secret } = await issueIngestCredential(db, {
    platform: "platform_a",
    cloud: "bench-cloud",
    actor: "bench",
  });
  const server = await startReportingProcess({ SVC_REPORTING_DB_URL: url });
  try {
    const bodies: string[] = [];
    for (let i = 0; i < events.length; i += batchSize)
      bodies.push(JSON.stringify(events.slice(i, i + batchSize)));
    let next = 0;
    let accepted = 0;
    const databaseCpu = cpuMeter(() => pg.processes());
    const serverCpu = cpuMeter(() => [server.proc.pid]);
    const began = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++] as string;
          const res = await fetch(`${server.base}/api/v1/events`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body,
          });
          const result = (await res.json()) as { accepted: number; rejected: unknown[] };
          if (res.status !== 200 || result.rejected.length > 0)
            throw new Error(`batch refused: ${res.status}`);
          accepted += result.accepted;
        }
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    const cpu = { database: databaseCpu.stop(), server: serverCpu.stop() };
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    const storeSeconds = Number(
      /svc_ingest_batch_duration_seconds_sum\{status="stored"\} ([\d.e+-]+)/.exec(metrics)?.[1] ?? Number.NaN,
    );
    const [rows] = await sql<{ n: number }[]>`select count(*)::int as n from current_resources`;
    return { seconds, cpu, accepted, storeSeconds, resources: rows?.n ?? 0 };
  } finally {
    const out = await server.stop();
    process.stderr.write(out.stderr + out.stdout);
    await close();
  }
}

const pg = await startPostgres();
try {
  const url = await pg.createDatabase();
  await migrateReporting(url);
  const events = ingestWorkload(total);
  const copy = await copyBaseline(pg, url, events);
  const api = await throughApi(pg, url, events);
  if (api.accepted !== events.length) throw new Error(`API accepted ${api.accepted} of ${events.length}`);
  const apiRate = events.length / api.seconds;
  const copyRate = events.length / copy.seconds;
  const line = (label: string, value: string) => console.log(`${label.padEnd(34)}${value}`);
  line("events", String(events.length));
  line("resources projected", String(api.resources));
  line("API clients x batch", `${clients} x ${batchSize}`);
  line("API (POST /api/v1/events)", `${api.seconds.toFixed(2)} s  ${Math.round(apiRate)} events/s`);
  line("  of which storing (server, sum)", `${api.storeSeconds.toFixed(2)} s`);
  line("raw COPY (same rows, same table)", `${copy.seconds.toFixed(2)} s  ${Math.round(copyRate)} events/s`);
  line("ratio API / COPY", (apiRate / copyRate).toFixed(3));
  if (pg.processes().length > 0) {
    line("CPU: API (server + database)", `${api.cpu.server.toFixed(2)} s + ${api.cpu.database.toFixed(2)} s`);
    line("CPU: COPY (database)", `${copy.cpuSeconds.toFixed(2)} s`);
    line("ratio by CPU, COPY / API", (copy.cpuSeconds / (api.cpu.server + api.cpu.database)).toFixed(3));
  }
} finally {
  await pg.stop();
}
