/**
 * The worker kill of the cluster scenario (issue 35, decision 473): `engine run --workers 2` is
 * started, one of its workers is killed (`kill -9`) once the workers are metering (a COPY of theirs is
 * in flight on the database), and what followed is measured: the run must fail as a whole (exit 2, its
 * row `failed`, none of its rows kept, no worker left), and the same command run again must complete.
 */
import postgres from "postgres";
import { engineWorkerPids } from "../engine/engine-workers.ts";
import { isAlive } from "../process/process-table.ts";
import { type RunOutput, readRunOutput } from "./engine-output.ts";
import type { Programs } from "./programs.ts";

export interface WorkerKillSeen {
  /** The worker as the failed run named it: `shard k/N (pid p)`. */
  worker: string;
  /** From the start of the run to the kill. */
  killedAfterMs: number;
  /** From the kill to the engine's exit. */
  failedInMs: number;
  exit: number;
  /** The failed run's id, its row's status and how many of its rows stayed (usage, lines, shards). */
  runId: string;
  status: string;
  rowsLeft: number;
  /** Workers of the failed run still alive once it exited. */
  workersLeft: number;
  /** The run again, to completion. */
  rerun: { runId: string; ms: number };
  /** What did not play as it should; absent when all did. */
  problem?: string;
}

/** Any COPY in flight or in an open transaction but ours: a worker reads its month or writes its rows. */
async function metering(sql: postgres.Sql): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
    where pid <> pg_backend_pid() and state <> 'idle' and query ilike 'copy%'`;
  return (row?.n ?? 0) > 0;
}

async function failedRun(sql: postgres.Sql, runId: string): Promise<{ status: string; rowsLeft: number }> {
  const [run] = await sql<{ status: string }[]>`select status from runs where id = ${runId}`;
  const [left] = await sql<{ n: number }[]>`select (
      (select count(*) from usage where run_id = ${runId}) + (select count(*) from rated_lines where run_id = ${runId})
      + (select count(*) from project_buckets where run_id = ${runId})
      + (select count(*) from project_usage where run_id = ${runId})
      + (select count(*) from run_shards where run_id = ${runId}))::int as n`;
  return { status: run?.status ?? "absent", rowsLeft: left?.n ?? 0 };
}

/**
 * Runs `args` (an `engine run … --workers N`) with one worker killed, then again; `pick` chooses the
 * worker (a seed's draw). Returns the completed run's output and what was seen.
 */
export async function meterThroughWorkerKill(options: {
  programs: Programs;
  args: readonly string[];
  env: Record<string, string>;
  pick: number;
}): Promise<{ meter: RunOutput; seen: WorkerKillSeen }> {
  const { programs, args, env } = options;
  const sql = postgres(env.SVC_ENGINE_DB_URL ?? "", { max: 1, onnotice: () => {} });
  try {
    const began = performance.now();
    const engine = programs.start("engine", args, env);
    let ended = false;
    void engine.done.then(() => {
      ended = true;
    });
    const seen = new Set<number>();
    let victim: number | undefined;
    while (victim === undefined && !ended) {
      const workers = engineWorkerPids(engine.pid);
      for (const pid of workers) seen.add(pid);
      if (workers.length > 0 && (await metering(sql)))
        victim = workers.sort((a, b) => a - b)[options.pick % workers.length];
      else await Bun.sleep(20);
    }
    const killedAt = performance.now();
    if (victim !== undefined) process.kill(victim, "SIGKILL");
    const failed = await engine.done;
    const exitedAt = performance.now();
    const said = failed.stderr.trim().split("\n").at(-1) ?? "";
    const runId = /run (\S+) failed/.exec(said)?.[1] ?? "";
    const worker = /the worker of (shard \d+\/\d+ \(pid \d+\))/.exec(said)?.[1] ?? "";
    const stored = runId === "" ? { status: "absent", rowsLeft: 0 } : await failedRun(sql, runId);
    const workersLeft = [...seen].filter(isAlive).length;
    const problem =
      victim === undefined
        ? `the run ended (exit ${failed.code}) before a worker was seen metering`
        : failed.code !== 2 || !said.includes("was killed by SIGKILL")
          ? `the run exited ${failed.code} saying ${JSON.stringify(said)}`
          : stored.status !== "failed" || stored.rowsLeft > 0 || workersLeft > 0
            ? `the failed run is ${stored.status} with ${stored.rowsLeft} rows kept and ${workersLeft} workers alive`
            : undefined;
    const againAt = performance.now();
    const meter = readRunOutput(await programs.run("engine", args, env));
    return {
      meter,
      seen: {
        worker,
        killedAfterMs: killedAt - began,
        failedInMs: exitedAt - killedAt,
        exit: failed.code,
        runId,
        ...stored,
        workersLeft,
        rerun: { runId: meter.runId, ms: performance.now() - againAt },
        ...(problem === undefined ? {} : { problem }),
      },
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
