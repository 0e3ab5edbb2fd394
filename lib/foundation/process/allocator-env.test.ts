import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const program = join(import.meta.dir, "../../../harness/process/allocator-env-program.ts");

function start(args: string[], env: Record<string, string> = {}) {
  return Bun.spawn(["bun", program, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
}

describe("withAllocatorEnv", () => {
  test("runs the program again with the setting, its arguments and its exit status", async () => {
    const proc = start(["3", "--flag", "x y"]);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect([JSON.parse(out), code]).toEqual([{ delay: "-1", args: ["3", "--flag", "x y"] }, 3]);
  });

  test("keeps a value the environment names, in the process itself", async () => {
    const proc = start(["0"], { MIMALLOC_PURGE_DELAY: "100" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect([JSON.parse(out), code]).toEqual([{ delay: "100", args: ["0"] }, 0]);
  });

  test("a signal to the program reaches the copy that runs it, and both end by it", async () => {
    const proc = start(["wait"]);
    const reader = proc.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(first)).toEqual({ delay: "-1", args: ["wait"] });
    proc.kill("SIGTERM");
    await proc.exited;
    expect(proc.signalCode).toBe("SIGTERM");
    // The child held the pipe open: its end closes it.
    expect((await reader.read()).done).toBe(true);
  });
});
