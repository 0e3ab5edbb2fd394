import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, releasePort } from "../harness/process/free-port.ts";
import { runProgram } from "../harness/process/run-program.ts";
import { waitFor } from "../harness/process/wait-for.ts";
import { reportingTestDatabase } from "../harness/reporting/reporting-database.ts";
import { apiToken, buildTestApp } from "../harness/reporting/reporting-test-app.ts";
import { consumeBus } from "../harness/simulator/bus-consumer.ts";
import { services } from "../harness/test-services.ts";
import { declaredExchanges } from "../lib/billing/simulator/notification-line.ts";
import { monthExchanges } from "../lib/billing/simulator/run-broker-mode.ts";

// Whole months are generated here; a busy shared machine can take seconds per test.
setDefaultTimeout(30_000);

const script = join(import.meta.dir, "simulator.ts");
const base = await mkdtemp(join(tmpdir(), "svc-sim-cmd-"));
afterAll(() => rm(base, { recursive: true, force: true }));

function simulator(args: string[], env: Record<string, string> = { SVC_SIM_CLOUD: "cloud-1" }) {
  return runProgram("cmd/simulator.ts", args, env);
}

async function files(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await Bun.file(join(dir, name)).text();
  return out;
}

const small = ["--period", "2026-10", "--tenants", "2"];

test("two runs of one seed, period and cloud write byte-identical files; another seed differs", async () => {
  const faults = ["--faults", "duplicates,held-back,refused-shapes,reordering,pre-existing"];
  const [a, b, c] = [join(base, "a"), join(base, "b"), join(base, "c")];
  const runs = await Promise.all([
    simulator(["run", ...small, ...faults, "--seed", "5", "--out", a]),
    simulator(["run", ...small, ...faults, "--seed", "5", "--out", b]),
    simulator(["run", ...small, ...faults, "--seed", "6", "--out", c]),
  ]);
  for (const r of runs) expect(r.code).toBe(0);
  const [fa, fb, fc] = await Promise.all([files(a), files(b), files(c)]);
  expect(Object.keys(fa)).toEqual(["events.jsonl", "held-back.jsonl", "notifications.jsonl", "oracle.json"]);
  expect(fb).toEqual(fa);
  expect(fc["oracle.json"]).not.toBe(fa["oracle.json"]);
  expect(fc["notifications.jsonl"]).not.toBe(fa["notifications.jsonl"]);
  // No progress line in a pipe.
  expect(runs[0]?.stderr).toBe("");
  const lines = (fa["notifications.jsonl"] ?? "")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  expect(Object.keys(lines[0])).toEqual(["exchange", "routing_key", "body"]);
  const exchanges = new Set(lines.map((l) => String(l.exchange)));
  expect([...exchanges].filter((e) => !(declaredExchanges as readonly string[]).includes(e))).toEqual([]);
  expect(exchanges.has("platform_a")).toBe(true);
  expect(exchanges.has("cinder")).toBe(false);
});

test("a rerun without held-back leaves no held-back.jsonl of the earlier run", async () => {
  const dir = join(base, "rerun");
  expect((await simulator(["run", ...small, "--faults", "held-back", "--out", dir])).code).toBe(0);
  expect((await simulator(["run", ...small, "--out", dir])).code).toBe(0);
  expect((await readdir(dir)).sort()).toEqual(["events.jsonl", "notifications.jsonl", "oracle.json"]);
});

test("refusals exit 1 before anything is written", async () => {
  const out = join(base, "refused");
  const cases: [string[], Record<string, string>, string][] = [
    [["run", ...small], { SVC_SIM_CLOUD: "c" }, "set SVC_SIM_AMQP_URL or pass --out"],
    [["run", ...small, "--out", out], {}, "SVC_SIM_CLOUD is required"],
    [["run", ...small, "--out", out], { SVC_SIM_CLOUD: "c", SVC_SIM_GARDEN_CLOUD: "c" }, "must differ"],
    [["run", "--period", "2099-01", "--out", out], { SVC_SIM_CLOUD: "c" }, "has not ended"],
    [
      ["run", ...small, "--faults", "nope", "--out", out],
      { SVC_SIM_CLOUD: "c" },
      "refused-shapes, held-back",
    ],
    [
      ["run", ...small],
      { SVC_SIM_CLOUD: "c", SVC_SIM_AMQP_URL: "amqp://guest:s3cret@broker.example:5672/" },
      "--allow-remote-broker",
    ],
    [
      ["run", ...small, "--out", out],
      {
        SVC_SIM_CLOUD: "c",
        SVC_SIM_OTLP_URL: "http://metrics.example/v1/metrics",
        SVC_SIM_OTLP_PASSWORD: "s3cret",
      },
      "SVC_SIM_OTLP_USER is required with SVC_SIM_OTLP_URL",
    ],
    [
      ["run", ...small, "--out", out],
      {
        SVC_SIM_CLOUD: "c",
        SVC_SIM_OTLP_URL: "http://metrics.example/v1/metrics",
        SVC_SIM_OTLP_USER: "u",
        SVC_SIM_OTLP_PASSWORD: "s3cret",
      },
      "set SVC_SIM_OTLP_INSECURE=true for plain http",
    ],
  ];
  for (const [args, env, message] of cases) {
    const r = await simulator(args, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stdout + r.stderr).not.toContain("s3cret");
  }
  expect(await readdir(base)).not.toContain("refused");
});

test("a broker that cannot be reached ends the run with exit 1, quoting no credential", async () => {
  const port = await freePort();
  const r = await simulator(["run", ...small], {
    SVC_SIM_CLOUD: "c",
    SVC_SIM_AMQP_URL: `amqp://guest:s3cret@127.0.0.1:${port}/`,
  });
  releasePort(port);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("cannot publish on the broker of SVC_SIM_AMQP_URL");
  expect(r.stdout + r.stderr).not.toContain("s3cret");
});

test("SIGTERM while holding the held-back share exits 0 and publishes none of it", async () => {
  const rabbit = await services.rabbitmq();
  const url = await rabbit.createVhost();
  const consumer = await consumeBus(url, monthExchanges);
  const port = await freePort();
  try {
    const proc = Bun.spawn(["bun", script, "run", ...small, "--faults", "held-back", "--factor", "0"], {
      env: {
        PATH: process.env.PATH ?? "",
        SVC_SIM_CLOUD: "c",
        SVC_SIM_AMQP_URL: url,
        SVC_SIM_HTTP_PORT: String(port),
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    let holding: { published: number; held: number } | null = null;
    await waitFor(
      async () => {
        const doc = await fetch(`http://127.0.0.1:${port}/clock`)
          .then((r) => r.json() as Promise<{ holding: boolean; published: number; held: number }>)
          .catch(() => null);
        if (doc?.holding === true) holding = doc;
        return holding !== null;
      },
      { timeoutMs: 30_000, onTimeout: () => new Error("the run never held") },
    );
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    const published = (holding as { published: number } | null)?.published ?? -1;
    await consumer.waitFor(published);
    await Bun.sleep(200);
    expect(consumer.lines.length).toBe(published);
  } finally {
    releasePort(port);
    await consumer.close();
  }
}, 60_000);

test("SIGINT stops a long generation cleanly: exit 0, no half month left", async () => {
  const dir = join(base, "stopped");
  const proc = Bun.spawn(["bun", script, "run", "--period", "2026-10", "--tenants", "600", "--out", dir], {
    env: { PATH: process.env.PATH ?? "", SVC_SIM_CLOUD: "c" },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Signal once the run is under way (it creates --out first), not while Bun is still loading it.
  await waitFor(() => existsSync(dir), {
    timeoutMs: 20_000,
    onTimeout: () => new Error("the run never created --out"),
  });
  proc.kill("SIGINT");
  expect(await proc.exited).toBe(0);
  expect(await readdir(dir).catch(() => [])).toEqual([]);
}, 30_000);

test("a path of an earlier run that cannot be removed ends the run naming it", async () => {
  const dir = join(base, "stale");
  await mkdir(join(dir, "oracle.json"), { recursive: true });
  await Bun.write(join(dir, "oracle.json", "keep"), "x");
  const r = await simulator(["run", ...small, "--out", dir]);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(join(dir, "oracle.json"));
  expect((await readdir(dir)).sort()).toEqual(["oracle.json"]);
});

describe("run --register-projects", () => {
  test("needs the API, an admin token and a garden cloud, and https unless insecure", async () => {
    const out = join(base, "unregistered");
    const r = await simulator(["run", ...small, "--register-projects", "--out", out], { SVC_SIM_CLOUD: "c" });
    expect(r.code).toBe(1);
    for (const variable of ["SVC_SIM_REPORTING_URL", "SVC_SIM_API_TOKEN", "SVC_SIM_GARDEN_CLOUD"]) {
      expect(r.stderr).toContain(`${variable} is required with --register-projects`);
    }
    const plain = await simulator(["run", ...small, "--register-projects", "--out", out], {
      SVC_SIM_CLOUD: "c",
      SVC_SIM_GARDEN_CLOUD: "g",
      SVC_SIM_API_TOKEN: "s3cret",
      SVC_SIM_REPORTING_URL: "http://127.0.0.1:9",
    });
    expect(plain.stderr).toContain("set SVC_SIM_REPORTING_INSECURE=true for plain http");
    expect(plain.stdout + plain.stderr).not.toContain("s3cret");
    expect(existsSync(out)).toBe(false);
  });

  test("registers before writing; a conflicting rerun exits 1 with the guidance and writes nothing", async () => {
    const db = await reportingTestDatabase();
    const server = buildTestApp(db).app;
    server.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const env = {
        SVC_SIM_CLOUD: "cloud-1",
        SVC_SIM_GARDEN_CLOUD: "garden-1",
        SVC_SIM_REPORTING_URL: `http://127.0.0.1:${server.server?.port}`,
        SVC_SIM_REPORTING_INSECURE: "true",
        SVC_SIM_API_TOKEN: await apiToken(db, "admin"),
      };
      const first = join(base, "registered");
      const ok = await simulator(["run", ...small, "--register-projects", "--out", first], env);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("projects registered");
      expect((await readdir(first)).sort()).toEqual(["events.jsonl", "notifications.jsonl", "oracle.json"]);
      const [projects] = await db.sql`select count(*)::int as n from projects`;
      expect(projects?.n).toBe(6);

      const second = join(base, "refused-registration");
      const refused = await simulator(
        ["run", "--period", "2026-09", "--tenants", "2", "--register-projects", "--out", second],
        env,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        "register this month under another garden cloud (SVC_SIM_GARDEN_CLOUD)",
      );
      expect(existsSync(second)).toBe(false);
    } finally {
      await server.stop(true);
      await db.dispose();
    }
  });
});

describe("replay", () => {
  test("needs SVC_SIM_AMQP_URL and --in, and refuses a bad file before dialling the broker", async () => {
    const missing = await simulator(["replay"], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("SVC_SIM_AMQP_URL is required");
    expect(missing.stderr).toContain("--in");
    const path = join(base, "not-a-month.jsonl");
    await Bun.write(path, "hello\n");
    const port = await freePort();
    const refused = await simulator(["replay", "--in", path], {
      SVC_SIM_AMQP_URL: `amqp://guest:s3cret@127.0.0.1:${port}/`,
    });
    releasePort(port);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`--in ${path} cannot be replayed:\n  line 1 is not JSON`);
    expect(refused.stdout + refused.stderr).not.toContain("s3cret");
  });
});
