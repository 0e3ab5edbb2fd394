import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../../../harness/process/wait-for.ts";
import {
  type ReportingTestDatabase,
  reportingTestDatabase,
} from "../../../harness/reporting/reporting-database.ts";
import { buildTestApp } from "../../../harness/reporting/reporting-test-app.ts";
import { consumeBus } from "../../../harness/simulator/bus-consumer.ts";
import { services } from "../../../harness/test-services.ts";
import { createLogger } from "../../foundation/log/logger.ts";
import { issueIngestCredential } from "../reporting/auth/credential-store.ts";
import { type ReplayFile, ReplayFileError, readReplayFile, runReplay } from "./replay.ts";
import { runFileMode } from "./run-file-mode.ts";
import { parseRunOptions } from "./run-options.ts";

setDefaultTimeout(90_000);

let dir: string;
const logger = createLogger({ service: "svc-simulator-test", level: "ERROR" });

/** A replay of `file` onto the broker at `amqpUrl`, its control API on a free port, never aborted. */
const replayOn = (
  file: ReplayFile,
  amqpUrl: string,
  pace: { factor: number; waitForCollectorMs: number; onListening?: (port: number) => void },
) =>
  runReplay({
    file,
    amqpUrl,
    ...pace,
    listen: { hostname: "127.0.0.1", port: 0 },
    logger,
    signal: new AbortController().signal,
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-sim-replay-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function month(name: string, faults = ""): Promise<string> {
  const out = join(dir, name);
  const options = parseRunOptions({ period: "2026-10", tenants: "2", faults }, new Date());
  await runFileMode(options, "cloud-1", out);
  return out;
}

async function refusal(path: string): Promise<string> {
  const error = await readReplayFile(path).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ReplayFileError);
  return (error as Error).message;
}

describe("reading a file to replay", () => {
  test("a month's notifications read whole, in order, with their instants", async () => {
    const out = await month("plain");
    const file = await readReplayFile(join(out, "notifications.jsonl"));
    const text = await Bun.file(join(out, "notifications.jsonl")).text();
    expect(file.lines.map((l) => JSON.stringify(l.line)).join("\n")).toBe(text.trimEnd());
    expect(file.exchanges).toEqual(["glance", "neutron", "nova", "octavia", "platform_a"]);
    // Pre-existing resources were created before the month: the clock starts there.
    expect(file.firstMs).toBeLessThan(Date.parse("2026-10-01T00:00:00Z"));
    expect(file.lastMs).toBeLessThan(Date.parse("2026-11-01T00:00:00Z"));
  });
});

describe("replay refusals", () => {
  test("an empty file, a missing file", async () => {
    const empty = join(dir, "empty.jsonl");
    await Bun.write(empty, "");
    expect(await refusal(empty)).toContain("is empty");
    expect(await refusal(join(dir, "nowhere.jsonl"))).toContain("cannot be read (ENOENT)");
  });

  test("every bad line is named by its number: not JSON, not a line, an undeclared exchange, no timestamp", async () => {
    const out = await month("bad");
    const [good = ""] = (await Bun.file(join(out, "notifications.jsonl")).text()).split("\n");
    const line = JSON.parse(good) as { exchange: string; routing_key: string; body: string };
    const untimed = JSON.parse(JSON.parse(line.body)["oslo.message"]) as Record<string, unknown>;
    delete untimed.timestamp;
    const path = join(dir, "bad.jsonl");
    await Bun.write(
      path,
      [
        good,
        "",
        "{nope",
        JSON.stringify({ exchange: "nova" }),
        JSON.stringify({ ...line, exchange: "cinder" }),
        JSON.stringify({
          ...line,
          body: JSON.stringify({ "oslo.version": "2.0", "oslo.message": JSON.stringify(untimed) }),
        }),
        "",
      ].join("\n"),
    );
    const message = await refusal(path);
    expect(message.split("\n").slice(1)).toEqual([
      "  line 2 is not JSON",
      "  line 3 is not JSON",
      "  line 4 is not an object with string members exchange, routing_key and body",
      '  line 5 names the exchange "cinder", which is not one of nova, platform_a, neutron, glance, octavia, keystone, designate, barbican (volume notifications travel on platform_a)',
      "  line 6 has a body without a usable timestamp: timestamp is missing",
    ]);
  });

  test("a month with refused-shapes cannot be replayed", async () => {
    const out = await month("shapes", "refused-shapes");
    const message = await refusal(join(out, "notifications.jsonl"));
    expect(message).toMatch(/is longer than 1048576 bytes|without a usable timestamp/);
  });
});

describe("replay on the clock", () => {
  test("the clock starts at the first line; a line older than its predecessor goes at once; only control routes", async () => {
    const rabbit = await services.rabbitmq();
    const url = await rabbit.createVhost();
    const consumer = await consumeBus(url, ["nova"]);
    const out = await month("clocked");
    const lines = (await Bun.file(join(out, "notifications.jsonl")).text())
      .split("\n")
      .filter((l) => l.includes('"nova"'));
    // The third line is dated before the second: once the second is out, the third follows at once.
    const picked = [lines[0], lines[lines.length - 1], lines[1]] as string[];
    const path = join(dir, "clocked.jsonl");
    await Bun.write(path, `${picked.join("\n")}\n`);
    const file = await readReplayFile(path);
    let port = 0;
    const run = replayOn(file, url, {
      factor: 1,
      waitForCollectorMs: 10_000,
      onListening: (p) => {
        port = p;
      },
    });
    try {
      await consumer.waitFor(1);
      let doc: Record<string, unknown> = {};
      // The broker may deliver the line before the publisher has counted its confirm.
      await waitFor(
        async () => {
          doc = (await (await fetch(`http://127.0.0.1:${port}/clock`)).json()) as Record<string, unknown>;
          return doc.published === 1;
        },
        { timeoutMs: 10_000, onTimeout: () => new Error("the first line was never confirmed") },
      );
      expect(Date.parse(String(doc.virtual_now)) - file.firstMs).toBeLessThan(60_000);
      expect(doc).toMatchObject({
        factor: 1,
        published: 1,
        total: 3,
        held: 0,
        holding: false,
        period_from: "2026-10-01T00:00:00.000Z",
        period_to: "2026-11-01T00:00:00.000Z",
      });
      expect((await fetch(`http://127.0.0.1:${port}/v3/auth/tokens`, { method: "POST" })).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/clock`, { method: "DELETE" })).status).toBe(405);
      const release = await fetch(`http://127.0.0.1:${port}/release`, { method: "POST" });
      expect(release.status).toBe(409);
      await fetch(`http://127.0.0.1:${port}/clock`, { method: "PUT", body: '{"factor": 0}' });
      expect(await run).toEqual({ published: 3, released: false, stopped: false });
      expect((await consumer.waitFor(3)).map((l) => JSON.stringify(l))).toEqual(picked);
    } finally {
      await consumer.close();
    }
  });
});

describe("replay through the collector", () => {
  let db: ReportingTestDatabase;
  let api: ReturnType<typeof buildTestApp>["app"];

  beforeAll(async () => {
    db = await reportingTestDatabase();
    api = buildTestApp(db).app;
    api.listen({ hostname: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    await api.stop(true);
    await db.dispose();
  });

  test("a month replayed twice is stored once: message ids are kept", async () => {
    const rabbit = await services.rabbitmq();
    const url = await rabbit.createVhost();
    const out = await month("twice", "duplicates");
    const file = await readReplayFile(join(out, "notifications.jsonl"));
    const expected = new Set(
      (await Bun.file(join(out, "events.jsonl")).text())
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { event_id: string }).event_id),
    );
    const { secret } = await issueIngestCredential(db.db, {
      platform: "platform_a",
      cloud: "cloud-1",
      actor: "test",
    });
    const collector = Bun.spawn(["bun", join(import.meta.dir, "../../../cmd/collector.ts")], {
      env: {
        PATH: process.env.PATH ?? "",
        SVC_LOG_LEVEL: "WARN",
        SVC_OSC_AMQP_URL: url,
        SVC_OSC_EXCHANGES: "nova,neutron,platform_a,glance,octavia",
        SVC_OSC_QUEUE_TYPE: "classic",
        SVC_OSC_CLOUD: "cloud-1",
        SVC_OSC_REPORTING_URL: `http://127.0.0.1:${api.server?.port}`,
        SVC_OSC_REPORTING_INSECURE: "true",
        SVC_OSC_INGEST_TOKEN: secret,
        SVC_OSC_OUTBOX_PATH: join(dir, "outbox.sqlite"),
        SVC_OSC_HTTP_PORT: "0",
      },
      stdout: "ignore",
      stderr: "pipe",
    });
    const stored = async () => Number((await db.sql`select count(*)::int as n from events`)[0]?.n ?? 0);
    try {
      for (const round of [1, 2]) {
        const report = await replayOn(file, url, { factor: 0, waitForCollectorMs: 60_000 });
        expect({ round, ...report }).toEqual({
          round,
          published: file.lines.length,
          released: false,
          stopped: false,
        });
        await waitFor(async () => (await stored()) >= expected.size, {
          timeoutMs: 60_000,
          onTimeout: () => new Error(`round ${round}: the events did not all arrive`),
        });
      }
      // Give the second round's deliveries time to land before counting once more.
      await Bun.sleep(2000);
      const ids = await db.sql`select event_id from events`;
      expect(ids.length).toBe(expected.size);
      expect(new Set(ids.map((r) => String(r.event_id)))).toEqual(expected);
    } finally {
      collector.kill("SIGTERM");
      await collector.exited;
    }
  });
});
