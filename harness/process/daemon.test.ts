import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Daemon } from "./daemon.ts";
import { freePort } from "./free-port.ts";
import { PortInUseError } from "./port-in-use-error.ts";
import { isAlive, listensOn } from "./process-table.ts";
import { makeTempDir, type TempDir } from "./temp-dir.ts";

const dirs: TempDir[] = [];

function tempDir(): TempDir {
  const dir = makeTempDir("daemon-test");
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function shell(dir: TempDir, script: string, stopSignal?: NodeJS.Signals): Daemon {
  return new Daemon({
    name: "test daemon",
    command: "sh",
    args: ["-c", script],
    logFile: join(dir.path, "daemon.log"),
    cwd: dir.path,
    stopSignal,
  });
}

test("a daemon that exits before it is ready fails with the tail of its log", async () => {
  const daemon = shell(tempDir(), "echo 'config file is broken'; exit 3");
  await expect(daemon.waitReady(() => false, 5000)).rejects.toThrow(
    /test daemon exited \(code 3, signal null\) before it was ready[\s\S]*config file is broken/,
  );
});

test("a daemon that is not ready in time is stopped and named with its log", async () => {
  const daemon = shell(tempDir(), "echo still booting; sleep 30");
  await expect(daemon.waitReady(() => false, 300)).rejects.toThrow(
    /test daemon was not ready after 300 ms[\s\S]*still booting/,
  );
  expect(daemon.running).toBe(false);
});

test("a port taken by another process is reported as PortInUseError", async () => {
  const dir = tempDir();
  const port = await freePort();
  const holder = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
  try {
    const daemon = new Daemon({
      name: "victoria-metrics",
      command: "/usr/bin/victoria-metrics",
      args: [`-storageDataPath=${dir.sub("data")}`, `-httpListenAddr=127.0.0.1:${port}`],
      logFile: join(dir.path, "vm.log"),
      cwd: dir.path,
    });
    await expect(daemon.waitReady(() => listensOn(daemon.members(), port), 10_000)).rejects.toBeInstanceOf(
      PortInUseError,
    );
  } finally {
    holder.stop(true);
  }
}, 15_000);

test("stop ends the whole process group, escalating to SIGKILL when the stop signal is ignored", async () => {
  const daemon = shell(tempDir(), "trap '' TERM; sleep 60 & sleep 60 & wait");
  await daemon.waitReady(() => daemon.members().length === 3, 5000);
  const members = daemon.members();
  const begin = performance.now();
  await daemon.stop(300);
  expect(performance.now() - begin).toBeLessThan(4000);
  expect(members.filter(isAlive)).toEqual([]);
});

test("a daemon that keeps running but logs that its address is taken fails fast", async () => {
  const daemon = shell(tempDir(), "echo 'ptcp:1234: listen failed: Address already in use'; sleep 30");
  const begin = performance.now();
  await expect(daemon.waitReady(() => false, 10_000)).rejects.toBeInstanceOf(PortInUseError);
  expect(performance.now() - begin).toBeLessThan(5000);
  expect(daemon.running).toBe(false);
});

test("a restarted daemon is not failed by what an earlier run logged", async () => {
  const dir = tempDir();
  const first = shell(dir, "echo 'Address already in use'");
  await first.exited;
  const second = shell(dir, "echo listening; sleep 30");
  await second.waitReady(() => readFileSync(second.spec.logFile, "utf8").includes("listening"), 5000);
  await second.stop();
});

test("a missing binary is a clear error, not a crash", () => {
  expect(
    () =>
      new Daemon({
        name: "ghost",
        command: "/nonexistent/ghost",
        args: [],
        logFile: join(tempDir().path, "g.log"),
      }),
  ).toThrow("ghost: could not start /nonexistent/ghost");
});
