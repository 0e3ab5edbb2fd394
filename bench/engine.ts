/**
 * Engine bench: a month metered, rated and stated by `engine run` (the real program in its own process),
 * then finalized and corrected by `engine correct` (nothing arrived late: the whole month metered again
 * and diffed, `no deltas`), each against a plain SQL scan of the same month's events in the same run on
 * the same database.
 *
 * The baseline ("scan") is the engine's own month statement (`monthStatement`: the same rows, the same
 * columns and expressions, ordered by resource as the engine reads them), run through the same driver
 * (postgres.js) as a plain select with a cursor of the engine's batch size inside a repeatable-read
 * read-only transaction, every row decoded into an object and dropped. The engine itself no longer
 * reads that way: it reads the same statement with `COPY … TO STDOUT` and splits the text itself
 * (decision 432), which costs less than the driver's decoding of every row. So the bench also times
 * that COPY with its bytes dropped unparsed ("copy"), the least any reader of these rows can spend, and
 * prints the ratio to both: the goal is stated against the scan. Both are read before and after the
 * engine; the faster pass counts.
 *
 * Prints wall times, their ratios and the engine's peak RSS per size, so growth can be read off; and the
 * CPU seconds each side spent, split into the client (the bench process for the scan, the engine's
 * process for a run) and the database (every process of the private PostgreSQL, exited backends
 * included): on a loaded machine wall time follows the neighbours, the CPU split does not.
 *
 * The run is made once per `--workers` count (decision 470): `--workers 1` meters in the engine's
 * process, `--workers 2` in two worker processes under a coordinator; each is a regular run of the same
 * month, and the last is finalized and corrected. A spread run's client CPU and peak RSS are the
 * coordinator's with its workers' (they are its children, reaped).
 *
 *   bun bench/engine.ts [--sizes 250000,500000,1000000] [--projects 2000] [--workers 1,2]
 *
 * The database is a private PostgreSQL from the harness. Events are loaded with COPY, then vacuumed.
 */
import { parseArgs } from "node:util";
import { familyCpuSeconds } from "../harness/process/process-table.ts";
import { type PostgresService, startPostgres } from "../harness/services/postgres.ts";
import { migrateEngine } from "../lib/billing/engine/engine-database.ts";
import {
  monthBatchRows,
  monthStatement,
  openReportingSource,
} from "../lib/billing/engine/reporting-source.ts";
import { migrateReporting } from "../lib/billing/reporting/migrate.ts";
import { parsePeriod } from "../lib/foundation/time/period.ts";
import { engineWorkload } from "./engine-workload.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "250000,500000,1000000" },
    projects: { type: "string", default: "2000" },
    workers: { type: "string", default: "1,2" },
  },
});
const workerCounts = values.workers.split(",").map(Number);
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
    // Vacuumed as well as analyzed: a freshly loaded table is vacuumed by autovacuum within a minute,
    // which landed in whichever of the scans or the run was going on then (decision 433); a month's
    // events in production were vacuumed long before the month is run.
    await sql`vacuum (analyze) events`;
    // The load left a few hundred MB of dirty buffers; the checkpoint that writes them would otherwise
    // land in whichever pass is running five minutes later (checkpoint_timeout), as the vacuum did.
    await sql`checkpoint`;
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

/** The baselines: the engine's own statement as a select through a cursor (rows decoded), and as a COPY. */
async function scan(pg: PostgresService, url: string, kind: "select" | "copy") {
  const sql = openReportingSource(url);
  try {
    await sql`select 1`;
    const statement = monthStatement(period.to, new Date().toISOString());
    const cpu = cpuMeter(pg);
    const began = performance.now();
    let rows = 0;
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      if (kind === "select") {
        for await (const batch of tx.unsafe(statement).cursor(monthBatchRows)) rows += batch.length;
      } else {
        for await (const chunk of await tx.unsafe(`copy (${statement}) to stdout`).readable()) {
          const bytes = chunk as Buffer;
          for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) rows += 1;
        }
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
  const results: { wall: string[]; cpu: string[] }[] = [];
  for (const size of sizes) {
    const url = await pg.createDatabase();
    await migrateReporting(url, new Date("2026-10-15T00:00:00Z"));
    // An engine database per size: each size runs, finalizes and corrects the same month.
    const engineUrl = await pg.createDatabase();
    await migrateEngine(engineUrl);
    const loaded = await load(url, size);
    const before = { select: await scan(pg, url, "select"), copy: await scan(pg, url, "copy") };
    const runs = [];
    for (const workers of workerCounts)
      runs.push(
        await engine(pg, url, engineUrl, [
          "run",
          "--period",
          period.name,
          "--pricing",
          pricing,
          "--workers",
          String(workers),
        ]),
      );
    // The last run is finalized (every run states the same month).
    await engine(pg, url, engineUrl, ["finalize", "--period", period.name]);
    // A correction meters the month again and diffs every resource against the finalized lines.
    const correct = await engine(pg, url, engineUrl, ["correct", "--period", period.name]);
    const after = { select: await scan(pg, url, "select"), copy: await scan(pg, url, "copy") };
    const faster = <T extends { seconds: number }>(a: T, b: T) => (a.seconds <= b.seconds ? a : b);
    const base = faster(before.select, after.select);
    const copy = faster(before.copy, after.copy);
    if (base.rows !== loaded.events || copy.rows !== loaded.events)
      throw new Error(`the scans read ${base.rows} and ${copy.rows} rows of ${loaded.events}`);
    const cpu = (c: { client: number; database: number }) =>
      `${c.client.toFixed(1)}+${c.database.toFixed(1)}`;
    const cpuRatio = (c: { client: number; database: number }) =>
      ((c.client + c.database) / (base.cpu.client + base.cpu.database)).toFixed(2);
    console.error(
      `${size}: loaded ${loaded.events} events over ${loaded.resources} resources in ${loaded.loadSeconds.toFixed(1)} s; ${runs[0]?.out[1]}; correct: ${correct.out[0]}`,
    );
    results.push({
      wall: [
        String(loaded.events),
        String(loaded.resources),
        `${before.select.seconds.toFixed(2)}/${after.select.seconds.toFixed(2)}`,
        `${before.copy.seconds.toFixed(2)}/${after.copy.seconds.toFixed(2)}`,
        ...runs.flatMap((run) => [
          run.seconds.toFixed(2),
          (run.seconds / base.seconds).toFixed(2),
          (run.seconds / copy.seconds).toFixed(2),
          (run.maxRss / 2 ** 20).toFixed(0),
        ]),
        correct.seconds.toFixed(2),
        (correct.seconds / base.seconds).toFixed(2),
        (correct.maxRss / 2 ** 20).toFixed(0),
      ],
      cpu: [
        String(loaded.events),
        cpu(base.cpu),
        cpu(copy.cpu),
        ...runs.flatMap((run) => [cpu(run.cpu), cpuRatio(run.cpu)]),
        cpu(correct.cpu),
        cpuRatio(correct.cpu),
      ],
    });
  }
  const runHeads = workerCounts.map((w) => `w${w} run s`);
  line(
    "events",
    "resources",
    "scan s",
    "copy s",
    ...runHeads.flatMap((head) => [head, "/scan", "/copy", "RSS MiB"]),
    "correct s",
    "/scan",
    "RSS MiB",
  );
  for (const r of results) line(...(r.wall as [string, ...string[]]));
  console.log("CPU seconds, client+database (each baseline's from its faster pass; ratios to the scan):");
  line("events", "scan", "copy", ...runHeads.flatMap((head) => [head, "ratio"]), "correct", "ratio");
  for (const r of results) line(...(r.cpu as [string, ...string[]]));
} finally {
  await pg.stop();
}
