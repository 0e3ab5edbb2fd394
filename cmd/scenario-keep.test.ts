import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cpuSeconds, isAlive, processesUnder } from "../harness/process/process-table.ts";
import { exportLines, startUntil } from "../harness/process/read-until.ts";
import { runProgram } from "../harness/process/run-program.ts";
import { stackAnswers } from "../harness/scenario/stack-answers.ts";

/** How long the stack must stay up, idle, after its lines are printed. */
const heldMs = 10_000;

describe("bun scenario --keep", () => {
  test("holds the stack, idle, answering 10 s after its export lines, until SIGTERM; then removes it, exit 0", async () => {
    const keepTemp = mkdtempSync("/tmp/sk-");
    chmodSync(keepTemp, 0o711);
    try {
      // The broker path, the default: RabbitMQ is part of what stays up.
      const { proc, said } = await startUntil(
        ["bun", join(import.meta.dir, "scenario.ts"), "golden", "--seed", "2", "--keep"],
        "Press Ctrl-C to stop and clean up.",
        { PATH: process.env.PATH ?? "", TMPDIR: keepTemp },
      );
      const exported = exportLines(said);
      expect(Object.keys(exported).sort()).toEqual([
        "SVC_ENGINE_DB_URL",
        "SVC_ENGINE_REPORTING_DB_URL",
        "SVC_ENGINE_VM_URL",
        "SVC_OSC_AMQP_URL",
        "SVC_REPORTING_DB_URL",
        "SVC_REPORTING_INTERNAL_TOKEN",
        "SVC_REPORTING_URL",
        "SVC_SIM_AMQP_URL",
      ]);
      expect(said).toMatch(/^PASS golden seed 2 in /m);
      const cpuBefore = cpuSeconds(proc.pid);
      await Bun.sleep(heldMs);
      // Idle: under 2% of a core while it holds (it once polled at 100%).
      expect(cpuSeconds(proc.pid) - cpuBefore).toBeLessThan((heldMs / 1000) * 0.02);
      expect(proc.exitCode).toBeNull();
      expect(
        await stackAnswers({ postgres: exported.SVC_REPORTING_DB_URL, amqp: exported.SVC_OSC_AMQP_URL }),
      ).toEqual({ postgres: true, amqp: true });
      // What the lines promise works from another shell: the API answers, the engine reads the month.
      const url = exported.SVC_REPORTING_URL ?? "";
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const periods = await runProgram("cmd/engine.ts", ["periods", "list"], {
        SVC_ENGINE_DB_URL: exported.SVC_ENGINE_DB_URL ?? "",
      });
      expect([periods.code, periods.stdout]).toEqual([0, expect.stringMatching(/^2026-10 .*finalized/m)]);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(await fetch(`${url}/readyz`).catch(() => null)).toBeNull();
      expect(readdirSync(keepTemp)).toEqual([]);
      expect(processesUnder(keepTemp).filter(isAlive)).toEqual([]);
    } finally {
      rmSync(keepTemp, { recursive: true, force: true });
    }
  }, 300_000);
});
