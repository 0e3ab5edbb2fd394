import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineTestStack, engineTestStack } from "../harness/engine/engine-test-stack.ts";
import { freePort } from "../harness/process/free-port.ts";
import { type ProgramRun, runProgram } from "../harness/process/run-program.ts";
import { type FreshDatabase, freshDatabase } from "../harness/reporting/fresh-database.ts";
import { engineMigrationsFolder } from "../lib/billing/engine/engine-database.ts";
import { migrationCount } from "../lib/foundation/postgres/migration-count.ts";

// Each command is a process of its own: Bun starts in a few hundred ms, more on a loaded machine.
setDefaultTimeout(60_000);

const pricing = join(import.meta.dir, "../pricing/default.yaml");
let stack: EngineTestStack;
let bare: FreshDatabase;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [stack, bare] = await Promise.all([engineTestStack(), freshDatabase()]);
  dir = await mkdtemp(join(tmpdir(), "svc-engine-cmd-"));
  env = { SVC_ENGINE_DB_URL: stack.engineUrl, SVC_ENGINE_REPORTING_DB_URL: stack.reportingDb.url };
  const sql = stack.reportingDb.sql;
  await stack.reportingDb.partitions.ensureFor(["2026-10-01T00:00:00.000Z"]);
  const size = JSON.stringify({
    state: "active",
    size: { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" },
  });
  await sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type, resource_id,
    project_id, source, payload) values
    ('e1', '2026-10-02T00:00:00Z', 'compute.instance.create.end', 'platform_a', 'c1', 'instance', 'i1', 'p1', 'collector', ${size}),
    ('e2', '2026-10-03T00:00:00Z', 'compute.instance.create.end', 'platform_a', 'c1', 'instance', 'i2', 'p2', 'collector', ${size})`;
  const [p1] =
    await sql`insert into projects (platform, cloud, external_id) values ('platform_a', 'c1', 'p1') returning id`;
  await sql`insert into projects (platform, cloud, external_id) values ('platform_a', 'c1', 'p2')`;
  const [acme] =
    await sql`insert into projects (platform, cloud, external_id) values ('partner', 'partner', 'acme') returning id`;
  const adjustments = JSON.stringify({
    pricing_adjustments: [
      { type: "discount", rate: "0.1", scope: "all", description: "reseller" },
      { type: "kickback", rate: "0.05", scope: "platform_a.instance" },
    ],
  });
  await sql`insert into project_relations (source_id, target_id, relation_type, metadata, valid_from)
    values (${p1?.id}, ${acme?.id}, 'managed_by', ${adjustments}, '2026-01-01T00:00:00Z')`;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await Promise.all([stack.dispose(), bare.drop()]);
});

const engine = (args: string[], extra: Record<string, string> = {}) =>
  runProgram("cmd/engine.ts", args, { ...env, ...extra });

/** What a refusal prints (decision 40): its line, then where the command's help is. */
const refusal = (command: string, line: string) =>
  `engine: ${line}\nengine: see 'engine ${command} --help'\n`;

describe("a month through the commands", () => {
  let runId = "";

  test("migrate applies the schema once", async () => {
    const first = await engine(["migrate"], { SVC_ENGINE_DB_URL: bare.url });
    expect([first.code, first.stdout]).toEqual([
      0,
      `engine schema up to date (${await migrationCount(engineMigrationsFolder)} migrations applied)\n`,
    ]);
    const again = await engine(["migrate"], { SVC_ENGINE_DB_URL: bare.url });
    expect(again.stdout).toBe("engine schema up to date (0 migrations applied)\n");
  });

  test("run prints its run line, the metered counts and the seven warning classes", async () => {
    const r = await engine(["run", "--period", "2026-10", "--pricing", pricing]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    runId =
      /^run (\S+) completed for 2026-10 with pricing model svc-default-2026$/.exec(lines[0] ?? "")?.[1] ?? "";
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.slice(1)).toEqual([
      "metered 2 candidates into 2 usage records and 6 rated records",
      "warnings recorded in runs.stats: metering=0 counter=2 attribution=0 adjustment=0 unpriced_resource_types=0 unreadable_fields=0 unregistered_projects=0 (counter_source_missing=2)",
    ]);
  });

  test("periods list shows the open period, then finalize closes it once", async () => {
    expect((await engine(["periods", "list"])).stdout).toBe(
      `2026-10 open latest_run=${runId} status=completed\n`,
    );
    const done = await engine(["finalize", "--period", "2026-10"]);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(new RegExp(`^run ${runId} finalized for 2026-10 at 20\\d\\d-`));
    const listed = (await engine(["periods", "list"])).stdout;
    expect(listed).toMatch(new RegExp(`^2026-10 finalized finalized_run=${runId} finalized_at=\\S+Z\\n$`));
    const again = await engine(["finalize", "--period", "2026-10"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^engine: 2026-10 is already finalized by run .* a finalized month is never changed\nengine: see 'engine finalize --help'\n$/,
    );
    const rerun = await engine(["run", "--period", "2026-10", "--pricing", pricing]);
    expect([rerun.code, rerun.stderr]).toEqual([
      1,
      refusal("run", `2026-10 is finalized (run ${runId}): book late events with correct --period 2026-10`),
    ]);
  });

  test("the database refuses to change a finalized run or its rows, whoever asks", async () => {
    const sql = stack.engine.sql;
    const attempts = [
      sql`update runs set status = 'completed' where id = ${runId}`,
      sql`delete from runs where id = ${runId}`,
      sql`update rated_lines set amount = 0 where run_id = ${runId}`,
      sql`delete from usage where run_id = ${runId}`,
      sql`update statements set total = 0 where run_id = ${runId}`,
      sql`delete from adjustment_records where run_id = ${runId}`,
      sql`delete from partner_settlements where run_id = ${runId}`,
    ];
    for (const attempt of attempts) {
      await expect(attempt).rejects.toThrow(`run ${runId} is finalized: a finalized month is never changed`);
    }
    const [lines] =
      await sql`select count(*)::int as n, sum(amount)::text as total from rated_lines where run_id = ${runId}`;
    expect(lines).toEqual({ n: 6, total: "67.12" });
  });

  test("export writes run.json, statements and kickbacks as json, rated.csv as csv", async () => {
    const json = await engine(["export", "--run", runId, "--format", "json", "--out", join(dir, "json")]);
    expect(json.stdout).toBe(
      `run ${runId} exported for 2026-10 as json into ${join(dir, "json")}\nwrote run.json and 2 statements\nwrote kickbacks.json with 1 beneficiaries\n`,
    );
    expect((await readdir(join(dir, "json"))).sort()).toEqual([
      "kickbacks.json",
      "run.json",
      "statement-c1%2Fp1.json",
      "statement-c1%2Fp2.json",
    ]);
    const statement = await Bun.file(join(dir, "json", "statement-c1%2Fp1.json")).json();
    expect(Object.keys(statement)).toEqual([
      "cloud",
      "project_id",
      "total",
      "base_cost",
      "net_cost",
      "kickback_total",
      "adjustments",
      "currency",
      "line_items",
      "related_costs",
    ]);
    // 720 h active at 2 vcpus, 4 GiB and 40 GiB: 18.00 + 12.10 + 4.03 = 34.13; less 10 %; 5 % of that to acme.
    expect([statement.base_cost, statement.net_cost, statement.kickback_total, statement.total]).toEqual([
      "34.13",
      "30.72",
      "1.54",
      "30.72",
    ]);
    expect(statement.adjustments.map((a: Record<string, unknown>) => Object.keys(a))).toEqual([
      [
        "type",
        "relation_type",
        "relation_target",
        "relation_id",
        "scope",
        "description",
        "rate",
        "base",
        "amount",
      ],
      ["type", "relation_type", "relation_target", "relation_id", "scope", "rate", "base", "amount"],
    ]);
    const plain = await Bun.file(join(dir, "json", "statement-c1%2Fp2.json")).json();
    expect(Object.keys(plain)).toEqual([
      "cloud",
      "project_id",
      "total",
      "currency",
      "line_items",
      "related_costs",
    ]);
    const csv = await engine(["export", "--run", runId, "--format", "csv", "--out", join(dir, "csv")]);
    expect(csv.stdout.split("\n")[1]).toBe("wrote rated.csv with 6 rated records");
    const rows = (await Bun.file(join(dir, "csv", "rated.csv")).text()).trim().split("\n");
    expect(rows[0]).toBe(
      "cloud,platform,resource_type,resource_id,project_id,dimension,quantity,unit_price,amount,currency",
    );
    expect(rows[1]).toBe("c1,platform_a,instance,i1,p1,disk_gb,28800.000000,0.000140,4.03,EUR");
  });

  test("price --explain prices a stored resource again, interval by interval, with RFC 3339 instants", async () => {
    const text = await engine(["price", "--period", "2026-10", "--explain", "i1"]);
    expect([text.code, text.stderr]).toEqual([0, ""]);
    expect(text.stdout.split("\n")[0]).toBe(
      `c1/platform_a/instance/i1 in run ${runId} (2026-10, pricing model svc-default-2026)`,
    );
    expect(text.stdout).toContain("  2026-10-02T00:00:00.000Z → 2026-11-01T00:00:00.000Z p1 active");
    expect(text.stdout).toContain("  statement c1/p1 total 30.72\n");
    const json = await engine(["price", "--period", "2026-10", "--explain", "i1", "--json"]);
    const e = JSON.parse(json.stdout);
    expect([e.run_id, e.resource_id, e.intervals.length]).toEqual([runId, "i1", 1]);
    expect([e.intervals[0].from, e.intervals[0].to]).toEqual([
      "2026-10-02T00:00:00.000Z",
      "2026-11-01T00:00:00.000Z",
    ]);
    expect(e.lines.map((l: { amount: string }) => l.amount).sort()).toEqual(["12.10", "18.00", "4.03"]);
    const unknown = await engine(["price", "--period", "2026-10", "--explain", "nope"]);
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([
      1,
      "",
      refusal("price", `run ${runId} metered no resource "nope" in 2026-10`),
    ]);
  });

  test("detect-late lists the resources whose events came after the finalized run read the month", async () => {
    const none = await engine(["detect-late", "--period", "2026-10"]);
    expect(none.stdout).toMatch(
      new RegExp(`^run ${runId} read 2026-10 at \\S+Z\\nno events arrived later\\n$`),
    );
    const payload = JSON.stringify({ state: "shutoff" });
    await stack.reportingDb
      .sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type,
      resource_id, project_id, source, payload) values
      ('late-1', '2026-10-20T00:00:00Z', 'compute.instance.power_off.end', 'platform_a', 'c1', 'instance', 'i1', 'p1', 'collector', ${payload}),
      ('late-2', '2026-10-21T00:00:00Z', 'compute.instance.power_off.end', 'platform_a', 'c1', 'instance', 'i1', 'p1', 'collector', ${payload}),
      ('next-month', '2026-11-02T00:00:00Z', 'compute.instance.power_off.end', 'platform_a', 'c1', 'instance', 'i2', 'p2', 'collector', ${payload})`;
    const late = await engine(["detect-late", "--period", "2026-10"]);
    const lines = late.stdout.trim().split("\n");
    expect(lines.slice(1, 2)[0]).toMatch(/^c1\/platform_a\/instance\/i1: 2 late events, last received \S+Z$/);
    expect(lines.slice(2)).toEqual(["book them with correct --period 2026-10"]);
    const refused = await engine(["detect-late", "--period", "2026-09"]);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      refusal(
        "detect-late",
        "2026-09 has no finalized run: events are late only against a finalized run; run the month with run --period 2026-09 and close it with finalize --period 2026-09",
      ),
    ]);
  });

  test("kickbacks prints the report of the finalized run", async () => {
    const r = await engine(["kickbacks", "--period", "2026-10"]);
    const report = JSON.parse(r.stdout);
    expect(report).toEqual({
      run_id: runId,
      kind: "regular",
      corrects_run_id: null,
      period_from: "2026-10-01T00:00:00.000Z",
      period_to: "2026-11-01T00:00:00.000Z",
      beneficiaries: [
        {
          beneficiary: "acme",
          currency: "EUR",
          kickback_total: "1.54",
          projects: 1,
          breakdown: [
            {
              cloud: "c1",
              project_id: "p1",
              relation_id: expect.any(String),
              scope: "platform_a.instance",
              rate: "0.050000",
              base: "30.72",
              amount: "1.54",
            },
          ],
        },
      ],
    });
  });
});

describe("late events corrected through the commands", () => {
  let regularId = "";
  let correctionId = "";

  /** The finalized runs' rows, every table, as one digest: what "never edited" is checked against. */
  async function finalizedDigest(): Promise<string> {
    const sql = stack.engine.sql;
    const tables = [
      "runs",
      "usage",
      "rated_lines",
      "statements",
      "adjustment_records",
      "partner_settlements",
      "line_deltas",
      "credit_notes",
      "adjustment_deltas",
    ];
    const parts: string[] = [];
    for (const table of tables) {
      const column = table === "runs" ? "id" : "run_id";
      const [row] = await sql.unsafe<{ digest: string | null }[]>(
        `select md5(string_agg(t::text, '|' order by t::text)) as digest from ${table} t
         where ${column} in (select id from runs where status = 'finalized')`,
      );
      parts.push(`${table}=${row?.digest}`);
    }
    return parts.join(" ");
  }

  test("correct books the late events of the finalized month as a correction", async () => {
    regularId =
      (
        await stack.engine.sql<{ id: string }[]>`
      select id::text from runs where period = '2026-10' and kind = 'regular' and status = 'finalized'`
      )[0]?.id ?? "";
    const r = await engine(["correct", "--period", "2026-10"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const lines = r.stdout.trim().split("\n");
    correctionId =
      new RegExp(
        `^run (\\S+) completed as a correction of run ${regularId} for 2026-10 with pricing model svc-default-2026$`,
      ).exec(lines[0] ?? "")?.[1] ?? "";
    expect(correctionId).toMatch(/^[0-9a-f-]{36}$/);
    // i1 shut off on the 20th: its vcpus and memory credited, its disk billed as before.
    expect(lines.slice(1)).toEqual([
      "metered 2 candidates into 3 usage records and 6 rated records",
      "2 deltas and 2 adjustment deltas in 1 credit notes",
      "warnings recorded in runs.stats: metering=0 counter=2 attribution=0 adjustment=0 unpriced_resource_types=0 unreadable_fields=0 unregistered_projects=0 (counter_source_missing=2)",
    ]);
  });

  test("export and kickbacks of the correction", async () => {
    const out = join(dir, "correction");
    const r = await engine(["export", "--run", correctionId, "--format", "json", "--out", out]);
    expect(r.stdout).toBe(
      `run ${correctionId} exported for 2026-10 as json into ${out}\nwrote run.json and 1 credit notes\nwrote kickbacks.json with 1 kickback deltas\n`,
    );
    expect((await readdir(out)).sort()).toEqual(["credit-note-c1%2Fp1.json", "kickbacks.json", "run.json"]);
    const note = await Bun.file(join(out, "credit-note-c1%2Fp1.json")).json();
    expect([note.project_id, note.corrects_run_id, note.total, note.net_delta]).toEqual([
      "p1",
      regularId,
      note.net_delta,
      note.total,
    ]);
    const kickbacks = JSON.parse(
      (await engine(["kickbacks", "--period", "2026-10", "--run", correctionId])).stdout,
    );
    expect([kickbacks.kind, kickbacks.corrects_run_id, kickbacks.beneficiaries[0].kickback_total]).toEqual([
      "correction",
      regularId,
      note.kickback_delta,
    ]);
  });

  test("finalize --run finalizes the correction; periods list still shows the regular run", async () => {
    const done = await engine(["finalize", "--period", "2026-10", "--run", correctionId]);
    expect([done.code, done.stdout]).toEqual([0, `correction run ${correctionId} finalized for 2026-10\n`]);
    expect((await engine(["periods", "list"])).stdout).toMatch(
      new RegExp(`^2026-10 finalized finalized_run=${regularId} finalized_at=\\S+Z\\n$`),
    );
    const again = await engine(["correct", "--period", "2026-10"]);
    expect([again.code, again.stdout]).toEqual([0, "no deltas: the finalized numbers of 2026-10 stand\n"]);
    const late = await engine(["detect-late", "--period", "2026-10"]);
    expect(late.stdout).toMatch(
      new RegExp(`^run ${correctionId} read 2026-10 at \\S+Z\\nno events arrived later\\n$`),
    );
  });

  test("two correct at once: one completes, the other is refused, nothing is stored twice", async () => {
    const payload = JSON.stringify({ state: "shutoff" });
    await stack.reportingDb.sql`insert into events (event_id, timestamp, event_type, platform, cloud,
      resource_type, resource_id, project_id, source, payload) values ('late-3', '2026-10-25T00:00:00Z',
      'compute.instance.power_off.end', 'platform_a', 'c1', 'instance', 'i2', 'p2', 'collector', ${payload})`;
    const runs = async () =>
      (await stack.engine.sql<{ n: number }[]>`select count(*)::int as n from runs`)[0]?.n ?? 0;
    const before = await runs();
    // The events stay locked until one correction holds the period and waits on them, so the two
    // overlap whatever the machine's speed: the one without the period's lock answers first.
    let both: Promise<ProgramRun>[] = [];
    const first = await stack.reportingDb.sql.begin(async (tx) => {
      await tx`lock table events in access exclusive mode`;
      both = [engine(["correct", "--period", "2026-10"]), engine(["correct", "--period", "2026-10"])];
      return Promise.race(both);
    });
    const second = await Promise.all(both);
    expect([first.code, first.stderr]).toEqual([
      1,
      refusal(
        "correct",
        "another run of this period is in progress: 2026-10 is being run, corrected or finalized",
      ),
    ]);
    const winner = second.find((r) => r !== first);
    expect(winner?.code).toBe(0);
    expect(winner?.stdout).toMatch(/^run \S+ completed as a correction of run /);
    expect(await runs()).toBe(before + 1);
  });

  test("a finalized month is never edited: every command tried against it", async () => {
    const digest = await finalizedDigest();
    const out = join(dir, "tries");
    const attempts: string[][] = [
      ["run", "--period", "2026-10", "--pricing", pricing],
      ["correct", "--period", "2026-10"],
      ["finalize", "--period", "2026-10"],
      ["finalize", "--period", "2026-10", "--run", regularId],
      ["finalize", "--period", "2026-10", "--run", correctionId],
      ["export", "--run", regularId, "--format", "json", "--out", out],
      ["export", "--run", correctionId, "--format", "csv", "--out", out],
      ["kickbacks", "--period", "2026-10"],
      ["kickbacks", "--period", "2026-10", "--run", correctionId],
      ["detect-late", "--period", "2026-10"],
      ["periods", "list"],
      ["migrate"],
    ];
    const codes: [string, number][] = [];
    for (const args of attempts) codes.push([args.join(" "), (await engine(args)).code]);
    expect(await finalizedDigest()).toBe(digest);
    // What could change something is refused; the rest only reads (correct stores a run of its own).
    expect(codes.filter(([, code]) => code !== 0).map(([args]) => args)).toEqual([
      `run --period 2026-10 --pricing ${pricing}`,
      "finalize --period 2026-10",
      `finalize --period 2026-10 --run ${regularId}`,
      `finalize --period 2026-10 --run ${correctionId}`,
    ]);
  });
});

describe("refusals: one line, exit 1", () => {
  test("a bad period, an unknown run, a missing pricing model, a bad format", async () => {
    const cases: [string[], string][] = [
      [
        ["run", "--period", "2026-13", "--pricing", pricing],
        refusal("run", '--period: a period is written YYYY-MM, got "2026-13"'),
      ],
      [
        ["run", "--period", "2099-01", "--pricing", pricing],
        refusal("run", "2099-01 has not ended: a month is run once it is over"),
      ],
      [
        ["run", "--period", "2026-10"],
        refusal("run", "name the pricing model: --pricing <file> or SVC_ENGINE_PRICING_MODEL"),
      ],
      [
        ["export", "--run", "00000000-0000-0000-0000-000000000000", "--format", "csv", "--out", dir],
        refusal(
          "export",
          'no run "00000000-0000-0000-0000-000000000000": engine periods list shows the periods run',
        ),
      ],
      [
        ["export", "--run", "x", "--format", "xml"],
        `engine: --format takes one of json, csv, got "xml"\nengine: --out is required\nengine: see 'engine export --help'\n`,
      ],
      [
        ["finalize", "--period", "2026-09"],
        refusal("finalize", "2026-09 has no completed run: run it first with run --period 2026-09"),
      ],
      [["finalize"], `engine: --period is required\nengine: see 'engine finalize --help'\n`],
      [
        ["correct", "--period", "2026-09"],
        refusal(
          "correct",
          "the billing period is not finalized: 2026-09 has no finalized run to correct; run it with run --period 2026-09 and close it with finalize --period 2026-09",
        ),
      ],
      [["run", "--period", "2026-10", "--bogus"], refusal("run", "unknown flag --bogus")],
    ];
    for (const [args, stderr] of cases) {
      const r = await engine(args);
      expect([args, r.code, r.stderr, r.stdout]).toEqual([args, 1, stderr, ""]);
    }
  });

  test("a database that is down", async () => {
    const port = await freePort();
    const down = `postgres://svc@127.0.0.1:${port}/nothing`;
    const r = await engine(["periods", "list"], { SVC_ENGINE_DB_URL: down });
    expect([r.code, r.stderr]).toEqual([2, "engine: cannot reach the database (ECONNREFUSED)\n"]);
    const run = await engine(["run", "--period", "2026-08", "--pricing", pricing], {
      SVC_ENGINE_REPORTING_DB_URL: down,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^engine: cannot reach the database \(ECONNREFUSED\)\n$/);
    expect(run.stderr).not.toContain(String(port));
  });

  test("--help on each command", async () => {
    for (const command of [
      ["run"],
      ["finalize"],
      ["correct"],
      ["periods", "list"],
      ["export"],
      ["kickbacks"],
      ["detect-late"],
      ["migrate"],
    ]) {
      const r = await engine([...command, "--help"]);
      expect([command, r.code]).toEqual([command, 0]);
      expect(r.stdout).toContain(`Usage: engine ${command.join(" ")}`);
    }
  });
});

describe("--json: one JSON document on stdout, nothing else", () => {
  /** Runs a command with --json: exit 0, nothing on stderr, and the whole of stdout one document. */
  const document = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await engine([...args, "--json"], extra);
    expect([args, r.code, r.stderr]).toEqual([args, 0, ""]);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  test("every command a script reads, over a month of its own", async () => {
    expect(await document(["migrate"], { SVC_ENGINE_DB_URL: bare.url })).toEqual({ applied: 0 });
    const run = await document(["run", "--period", "2026-09", "--pricing", pricing]);
    expect(run).toMatchObject({
      kind: "regular",
      period: "2026-09",
      pricing_model: "svc-default-2026",
      stats: { counts: { candidates: 0, usage_records: 0, rated_records: 0 } },
    });
    const runId = String(run.run_id);
    expect((await document(["periods", "list"])) as unknown as unknown[]).toContainEqual({
      period: "2026-09",
      status: "open",
      latest_run: runId,
      latest_status: "completed",
    });
    expect(await document(["finalize", "--period", "2026-09"])).toEqual({
      run_id: runId,
      kind: "regular",
      period: "2026-09",
      finalized_at: expect.stringMatching(/^20\d\d-.*Z$/),
    });
    expect(await document(["detect-late", "--period", "2026-09"])).toEqual({
      period: "2026-09",
      run_id: runId,
      read_at: expect.stringMatching(/Z$/),
      resources: [],
    });
    expect(await document(["correct", "--period", "2026-09"])).toEqual({
      outcome: "no_deltas",
      period: "2026-09",
    });
    const out = join(dir, "json-2026-09");
    expect(await document(["export", "--run", runId, "--format", "csv", "--out", out])).toEqual({
      run_id: runId,
      kind: "regular",
      period: "2026-09",
      format: "csv",
      out,
      files: ["rated.csv"],
      rated_records: 0,
    });
    expect(await document(["kickbacks", "--period", "2026-09"])).toMatchObject({ beneficiaries: [] });
  });
});
