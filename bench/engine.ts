/**
 * Engine bench: a month metered, rated and stated by `engine run` (the real program in its own process),
 * then finalized and corrected by `engine correct` (nothing arrived late: the whole month metered again
 * and diffed, `no deltas`), each against a plain SQL scan of the same month's events in the same run on
 * the same database.
 *
 * The baseline ("scan") is the engine's own month statement (`monthQuery`: the same rows, the same
 * columns and expressions, ordered by resource as the engine reads them), run through the same driver
 * (postgres.js) with the same cursor size inside a repeatable-read read-only transaction, every row
 * decoded into an object and dropped. It is scanned before and after the engine; the faster one counts.
 *
 * Prints wall times, their ratio and the engine's peak RSS per size, so growth can be read off; and the
 * CPU seconds each side spent, split into the client (the bench process for the scan, the engine's
 * process for a run) and the database (every process of the private PostgreSQL, exited backends
 * included): on a loaded machine wall time follows the neighbours, the CPU split does not.
 *
 *   bun bench/engine.ts [--sizes 250000,500000,1000000] [--projects 2000]
 *
 * The database is a private PostgreSQL from the harness. Events are loaded with COPY.
 */
import { parseArgs } from "node:util";
import { familyCpuSeconds } from "../harness/process/process-table.ts";
import { type PostgresService, startPostgres } from "../harness/services/postgres.ts";
import { migrateEngine } from "../lib/engine/engine-database.ts";
import { monthCursorRows, monthQuery, openReportingSource } from "../lib/engine/reporting-source.ts";
import { migrateReporting } from "../lib/reporting/migrate.ts";
import { parsePeriod } from "../lib/time/period.ts";
import { engineWorkload } from "./engine-workload.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "250000,500000,1000000" },
    projects: { type: "string", default: "2000" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const projects = Number(values.projects);
const period = parsePeriod("2026-10");
const pricing = `${import.meta.dir}/../pricing/default.yaml`;

async function load(url: string, events: number) {
  const sql = openReportingSource(url);
  try {
    for (const at of ["2026-09-01T00:00:00Z", "2026-10-01T00:00:00Z"]) {
      await sql`select svc_ensure_events_partition(${at}::timestamptz)`;
    }
    const workload = engineWorkload({ events, period, projects, cloud: "bench-cloud" });
    const began = performance.now();
    const writable = await sql`copy events (event_id, timestamp, event_type, platform, cloud, resource_type,
      resource_id, project_id, source, payload) from stdin with (format csv)`.writable();
    await new Promise<void>((resolve, reject) => {
      writable.on("error", reject);
      writable.on("finish", resolve);
      (async () => {
        for (const chunk of workload.chunks()) {
          if (!writable.write(chunk)) await new Promise((r) => writable.once("drain", r));
        }
        writable.end();
      })().catch(reject);
    });
    for (const id of workload.projectIds) {
      await sql`insert into projects (platform, cloud, external_id) values ('platform_a', 'bench-cloud', ${id})`;
    }
    await sql`analyze events`;
    return { ...workload.counts(), loadSeconds: (performance.now() - began) / 1000 };
  } finally {
    await sql.end();
  }
}

/** CPU seconds of the client and of the database from now until `stop()`. */
function cpuMeter(pg: PostgresService) {
  const client = process.cpuUsage();
  const database = familyCpuSeconds(pg.processes());
  return {
    stop: () => {
      const used = process.cpuUsage(client);
      return {
        client: (used.user + used.system) / 1e6,
        database: familyCpuSeconds(pg.processes()) - database,
      };
    },
  };
}

/** The baseline: the engine's own statement, through a cursor of the same size, rows counted and dropped. */
async function scan(pg: PostgresService, url: string) {
  const sql = openReportingSource(url);
  try {
    await sql`select 1`;
    const cpu = cpuMeter(pg);
    const began = performance.now();
    let rows = 0;
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      for await (const batch of tx
        .unsafe(monthQuery, [period.to, new Date().toISOString()])
        .cursor(monthCursorRows)) {
        rows += batch.length;
      }
    });
    return { seconds: (performance.now() - began) / 1000, rows, cpu: cpu.stop() };
  } finally {
    await sql.end();
  }
}

async function engine(pg: PostgresService, reportingUrl: string, engineUrl: string, args: string[]) {
  const database = familyCpuSeconds(pg.processes());
  const began = performance.now();
  const proc = Bun.spawn(["bun", `${import.meta.dir}/../cmd/engine.ts`, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      SVC_ENGINE_DB_URL: engineUrl,
      SVC_ENGINE_REPORTING_DB_URL: reportingUrl,
      SVC_LOG_LEVEL: "WARN",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  const seconds = (performance.now() - began) / 1000;
  if (code !== 0) throw new Error(`engine ${args[0]} exited ${code}`);
  const usage = proc.resourceUsage();
  const maxRss = usage?.maxRSS ?? Number.NaN;
  const client = usage === undefined ? Number.NaN : Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6;
  const cpu = { client, database: familyCpuSeconds(pg.processes()) - database };
  return { seconds, maxRss, cpu, out: out.trim().split("\n") };
}

const pg = await startPostgres();
try {
  const line = (...cells: string[]) =>
    console.log(cells.map((c, i) => (i === 0 ? c.padEnd(10) : c.padStart(12))).join(""));
  const results: string[][] = [];
  for (const size of sizes) {
    const url = await pg.createDatabase();
    await migrateReporting(url, new Date("2026-10-15T00:00:00Z"));
    // An engine database per size: each size runs, finalizes and corrects the same month.
    const engineUrl = await pg.createDatabase();
    await migrateEngine(engineUrl);
    const loaded = await load(url, size);
    const before = await scan(pg, url);
    const run = await engine(pg, url, engineUrl, ["run", "--period", period.name, "--pricing", pricing]);
    await engine(pg, url, engineUrl, ["finalize", "--period", period.name]);
    // A correction meters the month again and diffs every resource against the finalized lines.
    const correct = await engine(pg, url, engineUrl, ["correct", "--period", period.name]);
    const after = await scan(pg, url);
    const base = before.seconds <= after.seconds ? before : after;
    const cpu = (c: { client: number; database: number }) =>
      `${c.client.toFixed(1)}+${c.database.toFixed(1)}`;
    const cpuRatio = (c: { client: number; database: number }) =>
      ((c.client + c.database) / (base.cpu.client + base.cpu.database)).toFixed(2);
    console.error(
      `${size}: loaded ${loaded.events} events over ${loaded.resources} resources in ${loaded.loadSeconds.toFixed(1)} s; ${run.out[1]}; correct: ${correct.out[0]}`,
    );
    results.push([
      String(loaded.events),
      String(loaded.resources),
      `${before.seconds.toFixed(2)}/${after.seconds.toFixed(2)}`,
      run.seconds.toFixed(2),
      (run.seconds / base.seconds).toFixed(2),
      (run.maxRss / 2 ** 20).toFixed(0),
      correct.seconds.toFixed(2),
      (correct.seconds / base.seconds).toFixed(2),
      (correct.maxRss / 2 ** 20).toFixed(0),
      cpu(base.cpu),
      cpu(run.cpu),
      cpuRatio(run.cpu),
      cpu(correct.cpu),
      cpuRatio(correct.cpu),
    ]);
  }
  line("events", "resources", "scan s", "run s", "ratio", "RSS MiB", "correct s", "ratio", "RSS MiB");
  for (const r of results) line(...(r.slice(0, 9) as [string, ...string[]]));
  console.log("CPU seconds, client+database (the scan's from its faster pass):");
  line("events", "scan", "run", "ratio", "correct", "ratio");
  for (const r of results) line(...([r[0], ...r.slice(9)] as [string, ...string[]]));
} finally {
  await pg.stop();
}
