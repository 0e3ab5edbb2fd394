import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineTestStack, engineTestStack } from "../../../../harness/engine/engine-test-stack.ts";
import { engineWorkerPids } from "../../../../harness/engine/engine-workers.ts";
import { registerTenants } from "../../../../harness/engine/register-tenants.ts";
import { ingestThroughApi, simulateMonth } from "../../../../harness/engine/simulated-month.ts";
import { isAlive } from "../../../../harness/process/process-table.ts";
import { runProgram } from "../../../../harness/process/run-program.ts";
import { scenarioModelText } from "../../../../harness/scenario/pricing-plan.ts";
import { services } from "../../../../harness/test-services.ts";
import { loadSeries } from "../../../../harness/traffic/load-series.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import type { Tenant } from "../../simulator/month.ts";
import { trafficImportSeries } from "../../traffic/traffic-import.ts";

// Golden months are generated, ingested, and run by the engine's own processes, several times each.
setDefaultTimeout(300_000);

const root = join(import.meta.dir, "../../../..");
const pricing = join(root, "pricing/default.yaml");
const period = parsePeriod("2026-10");

let stack: EngineTestStack;
let env: Record<string, string>;
let vmUrl: string;
let ingest: ReturnType<typeof ingestThroughApi>;
let dir: string;

beforeAll(async () => {
  [stack, vmUrl] = await Promise.all([engineTestStack(), services.victoriaMetrics().then((vm) => vm.url)]);
  env = {
    SVC_ENGINE_DB_URL: stack.engineUrl,
    SVC_ENGINE_REPORTING_DB_URL: stack.reportingDb.url,
    SVC_ENGINE_COUNTER_SOURCES: join(root, "pricing/counter-sources.yaml"),
    SVC_ENGINE_VM_URL: vmUrl,
  };
  ingest = ingestThroughApi(stack.reportingDb);
  dir = mkdtempSync(join(tmpdir(), "svc-sharded-run-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stack.dispose();
});

async function engine(...args: string[]): Promise<string> {
  const run = await runProgram("cmd/engine.ts", args, env);
  if (run.code !== 0) throw new Error(`engine ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

/**
 * A golden month (the `golden` scenario: ten tenants, no fault) in the reporting database, registered
 * with adjustments; `held-back`, the same with that fault, its held share not yet ingested but returned.
 */
async function loadGoldenMonth(
  seed: number,
  fault: "held-back" | null = null,
  month = period,
): Promise<{ held: string[]; tenants: Tenant[] }> {
  await stack.reportingDb.reset();
  const cloud = `golden-${seed}`;
  const simulated = await simulateMonth({
    dir: join(dir, `${month.name}-${seed}`),
    seed,
    faults: fault === null ? [] : [fault],
    cloud,
    period: month.name,
    tenants: 10,
  });
  await registerTenants(stack.reportingDb.sql, {
    cloud,
    garden: `garden-${seed}`,
    tenants: simulated.tenants,
    from: month.from,
  });
  const split = simulated.eventLines.length - simulated.heldEvents;
  await ingest(simulated.eventLines.slice(0, split));
  await loadSeries(vmUrl, trafficImportSeries(cloud, simulated.oracle.traffic));
  return { held: simulated.eventLines.slice(split), tenants: simulated.tenants };
}

const runArgs = (workers: number, command: "run" | "correct" = "run", month = period) => [
  command,
  "--period",
  month.name,
  ...(command === "run" ? ["--pricing", pricing] : []),
  "--workers",
  String(workers),
];

async function runWith(workers: number, command: "run" | "correct" = "run", month = period): Promise<string> {
  const out = await engine(...runArgs(workers, command, month), "--json");
  return (JSON.parse(out) as { run_id: string }).run_id;
}

/**
 * Every file of the run's json and csv exports, by name: run.json and kickbacks.json with what names
 * the run itself (its id and instants) taken out, every other file as written.
 */
async function exported(runId: string): Promise<Record<string, string>> {
  const out = join(dir, runId);
  await engine("export", "--run", runId, "--format", "json", "--out", out);
  await engine("export", "--run", runId, "--format", "csv", "--out", out);
  const files: Record<string, string> = {};
  for (const name of readdirSync(out).sort()) {
    const text = readFileSync(join(out, name), "utf8");
    files[name] =
      name === "run.json" || name === "kickbacks.json"
        ? JSON.stringify(
            { ...JSON.parse(text), run_id: null, read_at: null, started_at: null, completed_at: null },
            null,
            2,
          )
        : text;
  }
  return files;
}

describe("engine run --workers 2 is byte-identical to --workers 1", () => {
  for (const seed of [1, 2, 3]) {
    test(`golden seed ${seed}`, async () => {
      await loadGoldenMonth(seed);
      const single = await exported(await runWith(1));
      const shardedRun = await runWith(2);
      const shards = await stack.engine.sql<{ shard: number }[]>`
        select shard from run_shards where run_id = ${shardedRun} order by shard`;
      expect(shards.map((s) => s.shard)).toEqual([0, 1]);
      const sharded = await exported(shardedRun);
      expect(Object.keys(single).length).toBeGreaterThan(5);
      expect(sharded).toEqual(single);
    });
  }
});

describe("engine correct --workers 2 is byte-identical to correct", () => {
  // A month of its own for each: a finalized month takes no regular run again.
  for (const [seed, name] of [
    [1, "2026-08"],
    [2, "2026-09"],
  ] as const) {
    test(`golden seed ${seed} with its held share late (${name})`, async () => {
      const month = parsePeriod(name);
      const { held } = await loadGoldenMonth(seed, "held-back", month);
      expect(held.length).toBeGreaterThan(0);
      const regular = await runWith(1, "run", month);
      await engine("finalize", "--period", month.name, "--run", regular);
      await ingest(held);
      // Neither correction is finalized: the second corrects the same chain as the first.
      const single = await exported(await runWith(1, "correct", month));
      const shardedRun = await runWith(2, "correct", month);
      const [counted] = await stack.engine.sql<{ shards: number; deltas: number }[]>`select
        (select count(*) from run_shards where run_id = ${shardedRun})::int as shards,
        (select count(*) from line_deltas where run_id = ${shardedRun})::int as deltas`;
      expect(counted?.shards).toBe(2);
      expect(counted?.deltas).toBeGreaterThan(0);
      const sharded = await exported(shardedRun);
      expect(Object.keys(single).filter((name) => name.includes("credit"))).not.toEqual([]);
      expect(sharded).toEqual(single);
    });
  }
});

type PlanRef = { tenant: number } | { manager: "alpha" };

/**
 * Plans that tier usage, graduated and volume, one on a cluster manager (its infrastructure tenant's
 * usage counts), beside minimums; their projects named by place among the classic tenants.
 */
const tieredPlans: { name: string; projects: PlanRef[]; [term: string]: unknown }[] = [
  {
    name: "tiered-compute",
    projects: [{ tenant: 0 }, { tenant: 3 }],
    tiered: [
      {
        dimension: "platform_a.instance.vcpus",
        mode: "graduated",
        tiers: [{ up_to: "300", price: "0.0125" }, { up_to: "1500", price: "0.0110" }, { price: "0.0095" }],
      },
      {
        dimension: "platform_a.instance.egress_gb",
        mode: "graduated",
        tiers: [{ up_to: "50", price: "0.05" }, { price: "0.04" }],
      },
    ],
  },
  {
    name: "bulk-storage",
    projects: [{ tenant: 1 }],
    tiered: [
      {
        dimension: "platform_a.volume.size_gb",
        mode: "volume",
        tiers: [{ up_to: "5000", price: "0.00012" }, { price: "0.00009" }],
      },
    ],
  },
  {
    name: "cluster",
    projects: [{ manager: "alpha" }],
    tiered: [
      {
        dimension: "platform_a.instance.vcpus",
        mode: "volume",
        tiers: [{ up_to: "2000", price: "0.0125" }, { price: "0.0100" }],
      },
    ],
  },
  { name: "committed", projects: [{ tenant: 2 }], minimums: [{ scope: "platform_a", amount: "2500.00" }] },
];

/** The pricing scenario's model file with `tieredPlans`, their projects resolved in a golden month. */
function tieredModel(seed: number, tenants: readonly Tenant[]): string {
  const cloud = `golden-${seed}`;
  const classic = tenants
    .filter((t) => t.kind === "classic")
    .map((t) => t.project_id)
    .sort();
  const plans: Record<string, unknown> = {};
  for (const { name, projects, ...terms } of tieredPlans) {
    const byCloud: Record<string, string[]> = {};
    for (const ref of projects) {
      const [at, id] = "tenant" in ref ? [cloud, classic[ref.tenant]] : [`garden-${seed}`, ref.manager];
      if (id === undefined) throw new Error(`no project for ${JSON.stringify(ref)}`);
      byCloud[at] = [...(byCloud[at] ?? []), id];
    }
    plans[name] = { projects: byCloud, ...terms };
  }
  const file = join(dir, `tiered-${seed}.yaml`);
  writeFileSync(
    file,
    scenarioModelText(readFileSync(join(root, "pricing/scenario-pricing.yaml"), "utf8"), plans),
  );
  return file;
}

describe("plans that tier usage under --workers 2", () => {
  test("golden seed 3 under tiered plans: byte-identical to one process, tier lines and all", async () => {
    const { tenants } = await loadGoldenMonth(3);
    const model = tieredModel(3, tenants);
    const run = async (workers: number) =>
      (JSON.parse(await engine(...runArgs(workers), "--pricing", model, "--json")) as { run_id: string })
        .run_id;
    const single = await exported(await run(1));
    const shardedRun = await run(2);
    const [tiered] = await stack.engine.sql<{ dimensions: number; statements: number }[]>`select
      (select count(distinct dimension) from project_usage where run_id = ${shardedRun})::int as dimensions,
      (select count(*) from statements where run_id = ${shardedRun}
        and jsonb_array_length(coalesce(plan -> 'tier_lines', '[]')) > 0)::int as statements`;
    // The three tiered dimensions, on the four statements whose plans tier them.
    expect(tiered).toEqual({ dimensions: 3, statements: 4 });
    expect(await exported(shardedRun)).toEqual(single);
  });
});

/**
 * `args` run with one of its workers killed (SIGKILL) as soon as one is seen: the engine must exit 2
 * naming the worker, its run row must be `failed` with none of its rows kept, and no worker left.
 */
async function withOneWorkerKilled(args: readonly string[]): Promise<void> {
  const coordinator = Bun.spawn(["bun", join(root, "cmd/engine.ts"), ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(coordinator.stderr).text();
  const seen = new Set<number>();
  let victim: number | undefined;
  while (victim === undefined && coordinator.exitCode === null) {
    for (const pid of engineWorkerPids(coordinator.pid)) seen.add(pid);
    victim = [...seen][0];
    if (victim === undefined) await Bun.sleep(5);
  }
  if (victim === undefined) throw new Error("the run ended before a worker was seen");
  process.kill(victim, "SIGKILL");
  expect(await coordinator.exited).toBe(2);
  const said = await stderr;
  expect(said).toMatch(
    /^engine: run \S+ failed: the worker of shard [01]\/2 \(pid \d+\) was killed by SIGKILL; nothing of it stands: run it again\n$/,
  );
  const runId = /run (\S+) failed/.exec(said)?.[1] as string;
  const [run] = await stack.engine.sql<{ status: string; error: string }[]>`
    select status, error from runs where id = ${runId}`;
  expect(run?.status).toBe("failed");
  expect(run?.error).toContain("was killed by SIGKILL");
  const [left] = await stack.engine.sql<{ n: number }[]>`select
    (select count(*) from usage where run_id = ${runId}) + (select count(*) from rated_lines where run_id = ${runId})
    + (select count(*) from line_deltas where run_id = ${runId}) + (select count(*) from credit_notes where run_id = ${runId})
    + (select count(*) from project_buckets where run_id = ${runId}) + (select count(*) from project_usage where run_id = ${runId})
    + (select count(*) from run_shards where run_id = ${runId})
    + (select count(*) from statements where run_id = ${runId}) as n`;
  expect(Number(left?.n)).toBe(0);
  // Every worker ended with the run: none is left writing.
  expect([...seen, ...engineWorkerPids(coordinator.pid)].filter(isAlive)).toEqual([]);
}

describe("a worker killed mid-run", () => {
  test("fails the run as a whole with the failure status, keeps nothing of it, and the run again succeeds", async () => {
    await loadGoldenMonth(1);
    const single = await exported(await runWith(1));
    await withOneWorkerKilled(runArgs(2));
    expect(await exported(await runWith(2))).toEqual(single);
  });

  test("fails a correction as a whole likewise, and correcting again gives the one process's notes", async () => {
    const month = parsePeriod("2026-07");
    const { held } = await loadGoldenMonth(2, "held-back", month);
    await engine("finalize", "--period", month.name, "--run", await runWith(1, "run", month));
    await ingest(held);
    const single = await exported(await runWith(1, "correct", month));
    await withOneWorkerKilled(runArgs(2, "correct", month));
    expect(await exported(await runWith(2, "correct", month))).toEqual(single);
  });
});
