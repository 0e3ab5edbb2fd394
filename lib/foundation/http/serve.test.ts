import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { waitFor } from "../../../harness/process/wait-for.ts";

const script = join(import.meta.dir, "../../../fixtures/http/test-server.ts");

async function start(env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", script], {
    env: { ...process.env, PORT: "0", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: Record<string, unknown>[] = [];
  let ended = false;
  // Keep draining stdout so the child never blocks on a full pipe, and keep its log lines to wait on.
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const p of parts) lines.push(JSON.parse(p));
    }
    ended = true;
  })();
  const logged = async (msg: string): Promise<Record<string, unknown>> => {
    await waitFor(() => ended || lines.some((l) => l.msg === msg), {
      timeoutMs: 20_000,
      onTimeout: () => new Error(`the server never logged "${msg}"`),
    });
    const line = lines.find((l) => l.msg === msg);
    if (line === undefined) throw new Error(`the server exited before logging "${msg}"`);
    return line;
  };
  const listening = await logged("listening");
  return { proc, port: Number(listening.port), logged };
}

describe("serve", () => {
  test("SIGTERM lets an in-flight request finish, refuses new ones, and exits 0", async () => {
    const { proc, port, logged } = await start();
    const inflight = fetch(`http://127.0.0.1:${port}/slow?ms=600`);
    await logged("slow request started");
    proc.kill("SIGTERM");
    // "stopping" is logged just before the listener is stopped, in the same turn.
    await logged("stopping");
    await expect(fetch(`http://127.0.0.1:${port}/slow?ms=0`)).rejects.toThrow();
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("done");
    expect(await proc.exited).toBe(0);
  });

  test("SIGINT when idle exits 0", async () => {
    const { proc } = await start();
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });

  test("requests outliving the grace period are cut and the exit is still 0", async () => {
    const { proc, port, logged } = await start({ GRACE_MS: "200" });
    const inflight = fetch(`http://127.0.0.1:${port}/slow?ms=20000`).catch((e: unknown) => e);
    await logged("slow request started");
    const t0 = performance.now();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(await inflight).toBeInstanceOf(Error);
  });

  test("a failing close exits 1", async () => {
    const { proc } = await start({ FAIL_CLOSE: "1" });
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(1);
  });

  test("a port already taken exits 1 before serving", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("x") });
    try {
      const proc = Bun.spawn(["bun", script], {
        env: { ...process.env, PORT: String(holder.port) },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await proc.exited).toBe(1);
      expect(await new Response(proc.stdout).text()).toContain("cannot listen");
    } finally {
      await holder.stop(true);
    }
  });
});
