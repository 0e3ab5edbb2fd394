/**
 * Engine bench: a month metered, rated and stated by `engine run` (the real program in its own process),
 * then finalized and corrected by `engine correct` (nothing arrived late: the whole month metered again
 * and diffed, `no deltas`), each against a plain SQL scan of the same month's events, read the way the engine reads them (the same
 * statement, ordered by resource, through the same cursor), in the same run on the same database.
 * Prints wall times, the ratio and the engine's peak RSS per size, so growth can be read off.
 *
 *   bun bench/engine.ts [--sizes 250000,500000,1000000] [--projects 2000]
 *
 * The database is a private PostgreSQL from the harness. Events are loaded with COPY.
 */
import { parseArgs } from "node:util";
import { startPostgres } from "../harness/services/postgres.ts";
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

/** The baseline: the engine's own statement, through a cursor of the same size, rows counted and dropped. */
async function scan(url: string): Promise<{ seconds: number; rows: number }> {
  const sql = openReportingSource(url);
  try {
    const began = performance.now();
    let rows = 0;
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      for await (const batch of tx
        .unsafe(monthQuery, [period.to, new Date().toISOString()])
        .cursor(monthCursorRows)) {
        rows += batch.length;
      }
    });
    return { seconds: (performance.now() - began) / 1000, rows };
  } finally {
    await sql.end();
  }
}

async function engine(reportingUrl: string, engineUrl: string, args: string[]) {
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
  const maxRss = proc.resourceUsage()?.maxRSS ?? Number.NaN;
  return { seconds, maxRss, out: out.trim().split("\n") };
}

const pg = await startPostgres();
try {
  const engineUrl = await pg.createDatabase();
  await migrateEngine(engineUrl);
  const line = (...cells: string[]) =>
    console.log(cells.map((c, i) => (i === 0 ? c.padEnd(10) : c.padStart(12))).join(""));
  const results: string[][] = [];
  for (const size of sizes) {
    const url = await pg.createDatabase();
    await migrateReporting(url, new Date("2026-10-15T00:00:00Z"));
    const loaded = await load(url, size);
    const before = await scan(url);
    const run = await engine(url, engineUrl, ["run", "--period", period.name, "--pricing", pricing]);
    await engine(url, engineUrl, ["finalize", "--period", period.name]);
    // A correction meters the month again and diffs every resource against the finalized lines.
    const correct = await engine(url, engineUrl, ["correct", "--period", period.name]);
    const after = await scan(url);
    const baseline = Math.min(before.seconds, after.seconds);
    console.error(
      `${size}: loaded ${loaded.events} events over ${loaded.resources} resources in ${loaded.loadSeconds.toFixed(1)} s; ${run.out[1]}; correct: ${correct.out[0]}`,
    );
    results.push([
      String(loaded.events),
      String(loaded.resources),
      `${before.seconds.toFixed(2)}/${after.seconds.toFixed(2)}`,
      run.seconds.toFixed(2),
      (run.seconds / baseline).toFixed(2),
      (run.maxRss / 2 ** 20).toFixed(0),
      correct.seconds.toFixed(2),
      (correct.seconds / baseline).toFixed(2),
      (correct.maxRss / 2 ** 20).toFixed(0),
    ]);
  }
  line("events", "resources", "scan s", "run s", "ratio", "RSS MiB", "correct s", "ratio", "RSS MiB");
  for (const r of results) line(...(r as [string, ...string[]]));
} finally {
  await pg.stop();
}
