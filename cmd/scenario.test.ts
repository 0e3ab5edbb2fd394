import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { cpuSeconds, isAlive, processesUnder } from "../harness/process/process-table.ts";
import { exportLines, startUntil } from "../harness/process/read-until.ts";
import { waitFor } from "../harness/process/wait-for.ts";
import { stackAnswers } from "../harness/scenario/stack-answers.ts";

const script = join(import.meta.dir, "scenario.ts");

interface Up {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  output: string;
  exports: Record<string, string>;
  dir: string;
}

// Starts `bun scenario up` and reads its output until the stack is announced.
async function scenarioUp(): Promise<Up> {
  const { proc, said } = await startUntil(["bun", script, "up"], "Press Ctrl-C");
  const dir = /^daemon dirs and logs: (.*)$/m.exec(said)?.[1] ?? "";
  return { proc, output: said, exports: exportLines(said), dir };
}

/** How long the stack must stay up, idle, after its lines are printed. */
const heldMs = 10_000;

test("scenario up holds the stack, idle, answering 10 s after its lines, until Ctrl-C; then nothing is left, exit 0", async () => {
  const up = await scenarioUp();
  expect(up.output).toMatch(/started in parallel: .*postgres \d+ ms/);
  for (const name of ["rabbitmq", "ovn", "victoria-metrics"])
    expect(up.output).toMatch(new RegExp(`${name} \\d+ ms`));
  for (const name of [
    "SVC_REPORTING_DB_URL",
    "SVC_ENGINE_DB_URL",
    "SVC_OSC_AMQP_URL",
    "SVC_SIM_AMQP_URL",
    "OVN_NB_DB",
    "OVN_SB_DB",
    "SVC_ENGINE_VM_URL",
    "SVC_TEST_PG_URL",
  ]) {
    expect(up.exports[name]).toBeDefined();
  }
  const cpuBefore = cpuSeconds(up.proc.pid);
  await Bun.sleep(heldMs);
  // Idle: under 2% of a core while it holds (it once polled at 100%).
  expect(cpuSeconds(up.proc.pid) - cpuBefore).toBeLessThan((heldMs / 1000) * 0.02);
  expect(up.proc.exitCode).toBeNull();
  expect(
    await stackAnswers({
      postgres: up.exports.SVC_REPORTING_DB_URL,
      amqp: up.exports.SVC_OSC_AMQP_URL,
      ovnNb: up.exports.OVN_NB_DB,
    }),
  ).toEqual({ postgres: true, amqp: true, ovn: true });
  const sql = postgres(up.exports.SVC_REPORTING_DB_URL ?? "", { max: 1, onnotice: () => {} });
  const [row] = await sql<{ db: string }[]>`select current_database() as db`;
  expect(row?.db).toBe("svc_reporting");
  await sql.end();
  expect((await fetch(`${up.exports.SVC_ENGINE_VM_URL}/health`)).ok).toBe(true);
  const processes = processesUnder(up.dir);
  expect(processes.length).toBeGreaterThan(10);
  up.proc.kill("SIGINT");
  expect(await up.proc.exited).toBe(0);
  expect(processes.filter(isAlive)).toEqual([]);
  expect(existsSync(up.dir)).toBe(false);
}, 180_000);

test("a SIGKILLed scenario up leaves nothing behind: its reaper cleans up", async () => {
  const up = await scenarioUp();
  const processes = processesUnder(up.dir);
  expect(processes.length).toBeGreaterThan(10);
  up.proc.kill("SIGKILL");
  await up.proc.exited;
  await waitFor(() => !processes.some(isAlive) && !existsSync(up.dir), {
    timeoutMs: 20_000,
    intervalMs: 100,
    onTimeout: () => new Error(`left behind: ${processes.filter(isAlive).join(" ")} ${up.dir}`),
  });
}, 120_000);

// The harness root of process `pid`, read from its reaper's arguments (`sh -c <script> svc-harness-reaper
// <pid> <root> <manifest>`): the dir exists before scenario up prints anything.
function rootOf(pid: number): string | undefined {
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const at = args.indexOf("svc-harness-reaper");
      if (at >= 0 && args[at + 1] === String(pid)) return args[at + 2];
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

test("Ctrl-C while the services start still stops them, exit 0", async () => {
  const proc = Bun.spawn(["bun", script, "up"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let root: string | undefined;
  await waitFor(
    () => {
      root = rootOf(proc.pid);
      return root !== undefined && processesUnder(root).length >= 5;
    },
    { timeoutMs: 20_000, onTimeout: () => new Error("scenario up started no services") },
  );
  const processes = processesUnder(root ?? "");
  proc.kill("SIGINT");
  expect(await proc.exited).toBe(0);
  expect(await new Response(proc.stdout).text()).toContain("stopped");
  expect(processes.filter(isAlive)).toEqual([]);
  expect(existsSync(root ?? "")).toBe(false);
}, 60_000);

test("an unknown subcommand is named, with where the usage is, exit 1", async () => {
  const proc = Bun.spawn(["bun", script, "no-such", "--seed", "7"], { stdout: "pipe", stderr: "pipe" });
  expect(await proc.exited).toBe(1);
  const stderr = await new Response(proc.stderr).text();
  expect(stderr).toStartWith('scenario: unknown command "no-such": one of up, list, ');
  expect(stderr).toEndWith("\nscenario: see 'scenario --help'\n");
});
