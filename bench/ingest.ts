/**
 * Ingest against the database's floor: events through `POST /api/v1/events` (batches of 1000,
 * projection included, the real server in its own process) against a raw COPY of the same rows into the
 * same table, on the same database, in alternated passes (COPY first in odd passes, the API first in
 * even ones), each pass from empty tables after a checkpoint.
 *
 * Per pass and side it counts the wall time, the CPU seconds of the database (every server process,
 * with the ones that exited meanwhile through their parent's reaped-children times) and of the
 * reporting server, and the WAL bytes written; it prints the median and the spread (min–max) of each,
 * per 1000 events, and the ratios per pair of passes. On a shared machine the wall time follows the
 * neighbours' load, the CPU and WAL figures much less. The database's profile of the API path comes
 * from pg_stat_statements (preloaded in the private server): time, planning time, rows, buffers and WAL
 * per statement kind, per 1000 events, with the CPU outside any statement (protocol, transaction ends) as the rest.
 * Autovacuum is off in the bench's server, so that a vacuum started by one pass is not counted in the
 * next; `--vacuum` measures the VACUUM (ANALYZE) each side's pass leaves behind, apart.
 *
 * The profile pass holds its last batch back and sends it alone with auto_explain on, printing the plan of
 * each statement a batch runs with its buffers and WAL (EXPLAIN (ANALYZE, BUFFERS, WAL), timing off).
 * After it the projection is compared with a rebuild from the history. Last come issue 33's two
 * acceptance figures (database CPU per 1000 events API / COPY, wall ratio) with the load average.
 *
 *   flock /work/.bench.lock bun bench/ingest.ts [--events 100000] [--clients 2] [--passes 3] [--vacuum]
 *
 * The database is a private PostgreSQL from the harness, or `SVC_TEST_PG_URL` (no CPU or profile then).
 */
import { readFileSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { Sql } from "postgres";
import { familyCpuSeconds } from "../harness/process/process-table.ts";
import { workloadCsv } from "../harness/reporting/copy-events.ts";
import { ingestWorkload, type WorkloadEvent } from "../harness/reporting/ingest-workload.ts";
import { type ReportingProcess, startReportingProcess } from "../harness/reporting/reporting-process.ts";
import { type PostgresService, startPostgres } from "../harness/services/postgres.ts";
import { issueIngestCredential } from "../lib/billing/reporting/auth/credential-store.ts";
import { openDatabase } from "../lib/billing/reporting/database.ts";
import { copyEventsCsv } from "../lib/billing/reporting/ingest/events-copy.ts";
import { migrateReporting } from "../lib/billing/reporting/migrate.ts";
import { readAllProjectionRows } from "../lib/billing/reporting/projection/project-resources.ts";
import { rebuildProjection } from "../lib/billing/reporting/projection/rebuild.ts";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "100000" },
    clients: { type: "string", default: "2" },
    passes: { type: "string", default: "3" },
    vacuum: { type: "boolean", default: false },
  },
});
const total = Number(values.events);
const clients = Number(values.clients);
const passes = Number(values.passes);
const batchSize = 1000;

/** One side's pass: seconds of wall time and of CPU, WAL bytes. */
interface Pass {
  wall: number;
  database: number;
  server: number;
  wal: number;
  vacuum: number;
}

interface Bench {
  pg: PostgresService;
  sql: Sql;
  server: ReportingProcess;
  secret: string;
  profiling: boolean;
}

const databaseCpu = (b: Bench) => familyCpuSeconds(b.pg.processes());
const walPosition = async (sql: Sql) =>
  ((await sql<{ at: string }[]>`select pg_current_wal_insert_lsn()::text as at`)[0] as { at: string }).at;
const walSince = async (sql: Sql, from: string) =>
  Number(
    (
      (
        await sql<{ n: string }[]>`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${from})::text as n`
      )[0] as { n: string }
    ).n,
  );

/** Empty tables, a checkpoint, and the statement counters reset: every pass starts alike. */
async function freshPass(b: Bench): Promise<void> {
  await b.sql`truncate events, current_resources`;
  await b.sql`checkpoint`;
  if (b.profiling) await b.sql`select pg_stat_statements_reset()`;
}

/** Measures `work` on both servers; with `--vacuum`, the VACUUM (ANALYZE) it leaves behind, apart. */
async function measured(b: Bench, work: () => Promise<void>): Promise<Pass> {
  const wal = await walPosition(b.sql);
  const database = databaseCpu(b);
  const server = familyCpuSeconds([b.server.proc.pid]);
  const began = performance.now();
  await work();
  const wall = (performance.now() - began) / 1000;
  const pass = {
    wall,
    database: databaseCpu(b) - database,
    server: familyCpuSeconds([b.server.proc.pid]) - server,
    wal: await walSince(b.sql, wal),
    vacuum: 0,
  };
  if (values.vacuum) {
    const before = databaseCpu(b);
    await b.sql`vacuum (analyze) events, current_resources`;
    pass.vacuum = databaseCpu(b) - before;
  }
  return pass;
}

async function copyPass(b: Bench, events: readonly WorkloadEvent[]): Promise<Pass> {
  const text = workloadCsv(events);
  await freshPass(b);
  const pass = await measured(b, () => copyEventsCsv(b.sql, text));
  const [row] = await b.sql<{ n: number }[]>`select count(*)::int as n from events`;
  if (row?.n !== events.length) throw new Error(`COPY stored ${row?.n} of ${events.length}`);
  return pass;
}

async function postAll(b: Bench, bodies: readonly string[]): Promise<number> {
  let next = 0;
  let accepted = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++] as string;
        const res = await fetch(`${b.server.base}/api/v1/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${b.secret}`, "content-type": "application/json" },
          body,
        });
        const result = (await res.json()) as { accepted: number; rejected: unknown[] };
        if (res.status !== 200 || result.rejected.length > 0) throw new Error(`batch refused: ${res.status}`);
        accepted += result.accepted;
      }
    }),
  );
  return accepted;
}

function batches(events: readonly WorkloadEvent[]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < events.length; i += batchSize)
    bodies.push(JSON.stringify(events.slice(i, i + batchSize)));
  return bodies;
}

async function apiPass(b: Bench, bodies: readonly string[], expected: number): Promise<Pass> {
  await freshPass(b);
  let accepted = 0;
  const pass = await measured(b, async () => {
    accepted = await postAll(b, bodies);
  });
  if (accepted !== expected) throw new Error(`API accepted ${accepted} of ${expected}`);
  return pass;
}

/** Statement kinds of an ingest batch, by the text pg_stat_statements keeps (first match wins). */
const statementKinds: [string, RegExp][] = [
  ["events: COPY", /^copy events/i],
  ["events: INSERT ON CONFLICT (retry)", /^\s*with stored as \(\s*insert into events/i],
  ["plan rule (set_config)", /^select set_config/i],
  ["size rules", /size_schema|size_names/i],
  ["projection: advisory locks", /pg_advisory_xact_lock/i],
  ["projection: read locked rows", /"rowCtid"/],
  ["projection: COPY new rows", /^copy current_resources/i],
  ["projection: UPDATE held rows", /^update current_resources/i],
  [
    "projection: refold histories",
    /from events e\s+join json_to_recordset.*cloud text, resource_type text/is,
  ],
  ["dead letters and audit", /insert into (rejected_events|audit_log)/i],
  ["credential lookup", /ingest_credentials/i],
  ["partitions", /svc_ensure_events_partition/i],
  ["transaction begin / commit", /^(begin|commit|rollback)/i],
];

/** Statements the bench itself sends, left out of the profile. */
const benchStatements =
  /^\s*(truncate|checkpoint|vacuum|select pg_|select count\(\*\)::int as n from events|create extension|alter system|select 1$|select \$1$|select b\.oid, b\.typarray)/i;

const kindOf = (query: string) =>
  statementKinds.find(([, re]) => re.test(query))?.[0] ?? `other: ${query.replace(/\s+/g, " ").slice(0, 30)}`;

interface StatementRow {
  query: string;
  calls: string;
  ms: number;
  plan: number;
  rows: string;
  hit: string;
  dirtied: string;
  wal: string;
}

async function statementProfile(sql: Sql) {
  const rows = await sql<StatementRow[]>`
    select query, calls::text, total_exec_time as ms, total_plan_time as plan, rows::text, shared_blks_hit::text as hit,
      shared_blks_dirtied::text as dirtied, wal_bytes::text as wal
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`;
  const kinds = new Map<
    string,
    { calls: number; ms: number; plan: number; rows: number; hit: number; dirtied: number; wal: number }
  >();
  for (const r of rows) {
    const kind =
      statementKinds.find(([, re]) => re.test(r.query))?.[0] ??
      `other: ${r.query.replace(/\s+/g, " ").slice(0, 40)}`;
    const k = kinds.get(kind) ?? { calls: 0, ms: 0, plan: 0, rows: 0, hit: 0, dirtied: 0, wal: 0 };
    k.calls += Number(r.calls);
    k.ms += r.ms;
    k.plan += r.plan;
    k.rows += Number(r.rows);
    k.hit += Number(r.hit);
    k.dirtied += Number(r.dirtied);
    k.wal += Number(r.wal);
    kinds.set(kind, k);
  }
  return [...kinds.entries()].sort((a, b) => b[1].ms - a[1].ms);
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const spread = (xs: readonly number[], digits: number, scale = 1) =>
  `${(median(xs) * scale).toFixed(digits)}  (${(Math.min(...xs) * scale).toFixed(digits)}–${(Math.max(...xs) * scale).toFixed(digits)})`;
const line = (label: string, value: string) => console.log(`${label.padEnd(44)}${value}`);

function report(copy: Pass[], api: Pass[], events: number, cpu: boolean) {
  const per1000 = 1000 / events;
  const ms = (xs: number[]) => spread(xs, 1, 1000 * per1000);
  line("events x passes (alternated)", `${events} x ${copy.length}`);
  line("API clients x batch", `${clients} x ${batchSize}`);
  console.log("\nper side: median (min–max) over passes");
  line(
    "wall s: API",
    spread(
      api.map((p) => p.wall),
      2,
    ),
  );
  line(
    "wall s: COPY",
    spread(
      copy.map((p) => p.wall),
      2,
    ),
  );
  if (cpu) {
    line("database CPU ms / 1000 events: API", ms(api.map((p) => p.database)));
    line("database CPU ms / 1000 events: COPY", ms(copy.map((p) => p.database)));
    line("server CPU ms / 1000 events: API", ms(api.map((p) => p.server)));
  }
  line(
    "WAL kB / 1000 events: API",
    spread(
      api.map((p) => p.wal),
      1,
      per1000 / 1024,
    ),
  );
  line(
    "WAL kB / 1000 events: COPY",
    spread(
      copy.map((p) => p.wal),
      1,
      per1000 / 1024,
    ),
  );
  if (values.vacuum && cpu) {
    line("vacuum after, CPU ms / 1000 events: API", ms(api.map((p) => p.vacuum)));
    line("vacuum after, CPU ms / 1000 events: COPY", ms(copy.map((p) => p.vacuum)));
  }
  console.log("\nratios per pair of passes: median (min–max)");
  const pairs = copy.map((c, i) => [c, api[i] as Pass] as const);
  line(
    "wall ratio, API rate / COPY rate",
    spread(
      pairs.map(([c, a]) => c.wall / a.wall),
      3,
    ),
  );
  if (cpu) {
    line(
      "CPU ratio, COPY / (API server + database)",
      spread(
        pairs.map(([c, a]) => c.database / (a.server + a.database)),
        3,
      ),
    );
    line(
      "database CPU, API / COPY",
      spread(
        pairs.map(([c, a]) => a.database / c.database),
        2,
      ),
    );
  }
  line(
    "WAL bytes, API / COPY",
    spread(
      pairs.map(([c, a]) => a.wal / c.wal),
      2,
    ),
  );
}

/**
 * CPU seconds per statement kind from the server log of a pass run with `log_statement_stats` (each
 * protocol message's getrusage, then the statement it belongs to, as `log_min_error_statement = log`
 * makes PostgreSQL write it).
 */
function loggedCpu(log: string): Map<string, number> {
  const out = new Map<string, number>();
  let pending: number | undefined;
  let statement: string | undefined;
  const settle = () => {
    if (pending !== undefined && statement !== undefined && !benchStatements.test(statement)) {
      const kind = kindOf(statement);
      out.set(kind, (out.get(kind) ?? 0) + pending);
    }
    pending = undefined;
    statement = undefined;
  };
  for (const row of log.split("\n")) {
    const usage = /^\t!\t([\d.]+) s user, ([\d.]+) s system/.exec(row);
    if (usage) pending = Number(usage[1]) + Number(usage[2]);
    else if (/\] LOG: {2}(QUERY|PARSE MESSAGE|BIND MESSAGE|EXECUTE MESSAGE) STATISTICS$/.test(row)) settle();
    else if (pending !== undefined && /\] STATEMENT: {2}/.test(row))
      statement = row.slice(row.indexOf("STATEMENT:  ") + 12);
    else if (statement !== undefined && row.startsWith("\t")) statement += `\n${row.slice(1)}`;
    else if (/^\d{4}-\d{2}-\d{2} /.test(row)) settle();
  }
  settle();
  return out;
}

/** Server settings for a while: set, reloaded, and read by every backend before its next command. */
async function withSettings<T>(b: Bench, settings: Record<string, string>, work: () => Promise<T>) {
  const apply = async (on: boolean) => {
    for (const [name, value] of Object.entries(settings))
      await b.sql.unsafe(on ? `alter system set ${name} = ${value}` : `alter system reset ${name}`);
    await b.sql`select pg_reload_conf()`;
    await Bun.sleep(300);
  };
  await apply(true);
  try {
    return await work();
  } finally {
    await apply(false);
  }
}

/** What the server log gained while `work` ran. */
async function logOf(b: Bench, work: () => Promise<unknown>): Promise<string> {
  const logFile = `${b.pg.dir}/postgres.log`;
  const from = statSync(logFile).size;
  await work();
  return readFileSync(logFile).subarray(from).toString("utf8");
}

/**
 * One more API pass, unmeasured, with every statement's CPU logged: the database's profile. Its last
 * batch is held back and sent alone with auto_explain on: the plan of each statement a batch runs, with
 * its buffers and WAL, on tables as full as the pass leaves them.
 */
async function profilePass(b: Bench, bodies: readonly string[], expected: number) {
  const held = bodies.at(-1) as string;
  const heldEvents = (JSON.parse(held) as unknown[]).length;
  let pass: Pass | undefined;
  const log = await withSettings(
    b,
    { log_statement_stats: "on", log_min_error_statement: "log", "pg_stat_statements.track_planning": "on" },
    () =>
      logOf(b, async () => {
        pass = await apiPass(b, bodies.slice(0, -1), expected - heldEvents);
      }),
  );
  const statements = await statementProfile(b.sql);
  const explained = await withSettings(b, explainSettings, () =>
    logOf(b, async () => {
      if ((await postAll(b, [held])) !== heldEvents) throw new Error("the explained batch was not stored");
    }),
  );
  return {
    pass: pass as Pass,
    events: expected - heldEvents,
    cpu: loggedCpu(log),
    statements,
    plans: loggedPlans(explained),
  };
}

const explainSettings = {
  "auto_explain.log_min_duration": "0",
  "auto_explain.log_analyze": "on",
  "auto_explain.log_buffers": "on",
  "auto_explain.log_wal": "on",
  "auto_explain.log_timing": "off",
  "auto_explain.log_nested_statements": "on",
};

/** auto_explain's plans from a server log, as (statement kind, plan lines without the query text). */
function loggedPlans(log: string): { kind: string; plan: string[] }[] {
  const plans: { kind: string; plan: string[] }[] = [];
  for (const entry of log.split(/\n(?=\d{4}-\d{2}-\d{2} )/)) {
    if (!/LOG: {2}duration: [\d.]+ ms {2}plan:/.test(entry)) continue;
    const lines = entry.split("\n").slice(1);
    const text: string[] = [];
    const plan: string[] = [];
    for (const row of lines) {
      const body = row.replace(/^\t/, "");
      if (plan.length === 0 && !/^\S.*\(cost=/.test(body)) text.push(body.replace(/^Query Text: /, ""));
      else plan.push(body);
    }
    const kind = kindOf(text.join("\n").trim());
    if (!benchStatements.test(kind.replace(/^other: /, ""))) plans.push({ kind, plan });
  }
  return plans;
}

function reportPlans(plans: { kind: string; plan: string[] }[]) {
  console.log("\nplans of one batch of the API path (auto_explain: ANALYZE, BUFFERS, WAL; COPY has no plan)");
  for (const { kind, plan } of plans) {
    console.log(`-- ${kind}`);
    for (const row of plan.filter((r) => r.trim() !== ""))
      console.log(`   ${row.length > 116 ? `${row.slice(0, 113)}...` : row}`);
  }
}

function reportProfile(profile: Awaited<ReturnType<typeof profilePass>>, events: number) {
  const per1000 = 1000 / events;
  const ms = (seconds: number) => (seconds * 1000 * per1000).toFixed(1);
  console.log(
    "\nthe database on the API path, per 1000 events (one more pass: CPU from log_statement_stats,",
  );
  console.log("planning time, rows, shared buffers and WAL from pg_stat_statements)");
  console.log(
    `${"statement kind".padEnd(40)}${"CPU ms".padStart(8)}${"plan ms".padStart(8)}${"calls".padStart(7)}${"rows".padStart(7)}${"blks hit".padStart(10)}${"dirtied".padStart(9)}${"WAL kB".padStart(9)}`,
  );
  const stats = new Map(profile.statements);
  const kinds = [...new Set([...profile.cpu.keys(), ...stats.keys()])]
    .filter((kind) => !benchStatements.test(kind.replace(/^other: /, "")))
    .sort((a, b) => (profile.cpu.get(b) ?? 0) - (profile.cpu.get(a) ?? 0));
  let inStatements = 0;
  for (const kind of kinds) {
    const cpu = profile.cpu.get(kind) ?? 0;
    const k = stats.get(kind) ?? { calls: 0, plan: 0, rows: 0, hit: 0, dirtied: 0, wal: 0 };
    inStatements += cpu;
    console.log(
      `${kind.padEnd(40)}${ms(cpu).padStart(8)}${(k.plan * per1000).toFixed(1).padStart(8)}${(k.calls * per1000).toFixed(1).padStart(7)}${Math.round(
        k.rows * per1000,
      )
        .toString()
        .padStart(7)}${Math.round(k.hit * per1000)
        .toString()
        .padStart(10)}${Math.round(k.dirtied * per1000)
        .toString()
        .padStart(9)}${((k.wal * per1000) / 1024).toFixed(1).padStart(9)}`,
    );
  }
  line("in statements, CPU ms", ms(inStatements));
  line("the whole database in that pass, CPU ms", ms(profile.pass.database));
  line("  outside statements (protocol, background)", ms(profile.pass.database - inStatements));
}

/**
 * Issue 33's two figures, last and apart, with the machine's load while the passes ran: the database's
 * CPU per event on the API path at most twice the COPY's, and the API at least 0.45 of COPY's rate.
 */
function reportAcceptance(copy: Pass[], api: Pass[], cpu: boolean, load: [number, number]) {
  const pairs = copy.map((c, i) => [c, api[i] as Pass] as const);
  console.log(
    `\nacceptance (issue 33), median of ${pairs.length} pairs of passes; load average (1 min) ${load[0].toFixed(1)} before the passes, ${load[1].toFixed(1)} after`,
  );
  if (cpu) {
    const ratio = median(pairs.map(([c, a]) => a.database / c.database));
    line("  database CPU per 1000 events, API / COPY", `${ratio.toFixed(2)}   (target: at most 2)`);
  }
  const wall = median(pairs.map(([c, a]) => c.wall / a.wall));
  line("  wall ratio, API rate / COPY rate", `${wall.toFixed(3)}  (target: at least 0.45)`);
}

async function projectionEqualsRebuild(sql: Sql): Promise<boolean> {
  const strip = (rows: Awaited<ReturnType<typeof readAllProjectionRows>>) =>
    JSON.stringify(rows.map(({ updatedAt: _, ...r }) => r));
  const projected = strip(await readAllProjectionRows(sql));
  await rebuildProjection(sql, {});
  return projected === strip(await readAllProjectionRows(sql));
}

const pg = await startPostgres(process.env, [
  "shared_preload_libraries=pg_stat_statements,auto_explain",
  "pg_stat_statements.max=1000",
  "autovacuum=off",
]);
try {
  const url = await pg.createDatabase();
  await migrateReporting(url);
  const { db, sql, close } = openDatabase(url, { max: 2 });
  const profiling = await sql`create extension if not exists pg_stat_statements`.then(
    () => true,
    () => false,
  );
  const { secret } = await issueIngestCredential(db, {
    platform: "platform_a",
    cloud: "bench-cloud",
    actor: "bench",
  });
  const server = await startReportingProcess({ SVC_REPORTING_DB_URL: url });
  const b: Bench = { pg, sql, server, secret, profiling };
  try {
    const events = ingestWorkload(total);
    const bodies = batches(events);
    // A warm-up of each side (the server's JIT, the database's caches), not counted.
    const warm = events.slice(0, Math.min(events.length, 20 * batchSize));
    await copyPass(b, warm);
    await apiPass(b, batches(warm), warm.length);
    const copy: Pass[] = [];
    const api: Pass[] = [];
    const loadBefore = loadavg()[0] as number;
    for (let i = 0; i < passes; i++) {
      const runApi = async () => void api.push(await apiPass(b, bodies, events.length));
      const runCopy = async () => void copy.push(await copyPass(b, events));
      if (i % 2 === 0) {
        await runCopy();
        await runApi();
      } else {
        await runApi();
        await runCopy();
      }
      console.error(`pass ${i + 1}/${passes} done`);
    }
    const loadAfter = loadavg()[0] as number;
    const cpu = pg.processes().length > 0;
    // The profile pass ingests the whole workload once more, so the projection check follows it.
    const profile = profiling && cpu ? await profilePass(b, bodies, events.length) : undefined;
    if (!profile) await apiPass(b, bodies, events.length);
    const equal = await projectionEqualsRebuild(sql);
    report(copy, api, events.length, cpu);
    if (profile) {
      reportProfile(profile, profile.events);
      reportPlans(profile.plans);
    }
    console.log(`\nprojection equals a rebuild after the bench: ${equal}`);
    reportAcceptance(copy, api, cpu, [loadBefore, loadAfter]);
    if (!equal) process.exitCode = 1;
  } finally {
    const out = await server.stop();
    process.stderr.write(out.stderr + out.stdout);
    await close();
  }
} finally {
  await pg.stop();
}
