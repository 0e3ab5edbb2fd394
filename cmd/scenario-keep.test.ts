import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive, processesUnder } from "../harness/process/process-table.ts";
import { runProgram } from "../harness/process/run-program.ts";

describe("bun scenario --keep", () => {
  test("leaves the stack up with its export lines until Ctrl-C, then removes it and exits 0", async () => {
    const keepTemp = mkdtempSync("/tmp/sk-");
    chmodSync(keepTemp, 0o711);
    try {
      // The file path: --keep does the same on either, without RabbitMQ's start.
      const child = Bun.spawn(
        ["bun", join(import.meta.dir, "scenario.ts"), "golden", "--seed", "2", "--via", "file", "--keep"],
        { env: { PATH: process.env.PATH ?? "", TMPDIR: keepTemp }, stdout: "pipe", stderr: "pipe" },
      );
      let said = "";
      const reader = child.stdout.getReader();
      const decoder = new TextDecoder();
      while (!said.includes("Press Ctrl-C to stop and clean up.")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the run ended before holding the stack:\n${said}`);
        said += decoder.decode(value, { stream: true });
      }
      const exported = Object.fromEntries(
        [...said.matchAll(/^export (SVC_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]),
      );
      expect(Object.keys(exported).sort()).toEqual([
        "SVC_ENGINE_DB_URL",
        "SVC_ENGINE_REPORTING_DB_URL",
        "SVC_ENGINE_VM_URL",
        "SVC_REPORTING_DB_URL",
        "SVC_REPORTING_INTERNAL_TOKEN",
        "SVC_REPORTING_URL",
      ]);
      expect(said).toMatch(/^PASS golden seed 2 in /m);
      // What the lines promise works from another shell: the API answers, the engine reads the month.
      const url = exported.SVC_REPORTING_URL ?? "";
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const periods = await runProgram("cmd/engine.ts", ["periods", "list"], {
        SVC_ENGINE_DB_URL: exported.SVC_ENGINE_DB_URL ?? "",
      });
      expect([periods.code, periods.stdout]).toEqual([0, expect.stringMatching(/^2026-10 .*finalized/m)]);
      child.kill("SIGINT");
      expect(await child.exited).toBe(0);
      expect(await fetch(`${url}/readyz`).catch(() => null)).toBeNull();
      expect(readdirSync(keepTemp)).toEqual([]);
      expect(processesUnder(keepTemp).filter(isAlive)).toEqual([]);
    } finally {
      rmSync(keepTemp, { recursive: true, force: true });
    }
  }, 240_000);
});
