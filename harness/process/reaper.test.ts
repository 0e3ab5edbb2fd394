import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./process-table.ts";
import { waitFor } from "./wait-for.ts";

// A child bun process starts daemons through the harness and is then SIGKILLed: no exit handler runs,
// so only the reaper can stop the daemons and remove the dirs.
const child = `
import { Daemon } from ${JSON.stringify(join(import.meta.dir, "daemon.ts"))};
import { makeTempDir } from ${JSON.stringify(join(import.meta.dir, "temp-dir.ts"))};
const dir = makeTempDir("reaper-test");
const daemons = [1, 2].map((n) => new Daemon({
  name: "sleeper " + n, command: "sh", args: ["-c", "sleep 300 & sleep 300 & wait"],
  logFile: dir.path + "/sleeper-" + n + ".log", cwd: dir.path,
}));
await Promise.all(daemons.map((d) => d.waitReady(() => d.members().length === 3, 5000)));
console.log(JSON.stringify({ dir: dir.path, pids: daemons.flatMap((d) => d.members()) }));
setInterval(() => {}, 1000);
`;

test("daemons and dirs of a SIGKILLed harness process are removed by its reaper", async () => {
  const proc = Bun.spawn(["bun", "-e", child], { stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  const started = JSON.parse(new TextDecoder().decode(value)) as { dir: string; pids: number[] };
  expect(started.pids.length).toBe(6);
  expect(started.pids.filter((pid) => !isAlive(pid))).toEqual([]);
  proc.kill("SIGKILL");
  await proc.exited;
  // The whole harness root (the service dir's parent) must go: `rm -rf` removes the service dir a
  // moment before its parent, so waiting on the service dir alone raced with it under load.
  const root = join(started.dir, "..");
  await waitFor(() => !started.pids.some(isAlive) && !existsSync(root), {
    timeoutMs: 10_000,
    onTimeout: () => new Error(`left behind: ${started.pids.filter(isAlive).join(" ")} ${root}`),
  });
  expect(existsSync(started.dir)).toBe(false);
});
