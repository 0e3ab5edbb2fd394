import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  collectorExchanges,
  collectorProcess,
  readyCollector,
  untilDelivered,
} from "../harness/collector/collector-process.ts";
import { declareExchanges, publishLines, queueDepth } from "../harness/collector/publisher.ts";
import { type ReportingApi, startReportingApi } from "../harness/collector/reporting-api.ts";
import { simulatedMonth } from "../harness/collector/simulated-month.ts";
import { until } from "../harness/collector/until.ts";
import { promtoolLint } from "../harness/metrics/promtool.ts";
import { runProgram } from "../harness/process/run-program.ts";
import type { RabbitmqService } from "../harness/services/rabbitmq.ts";
import { services } from "../harness/test-services.ts";
import { encodeEnvelope } from "../lib/billing/oslo/envelope.ts";
import { declaredExchanges } from "../lib/billing/simulator/notification-line.ts";
import { expositionTotal } from "../lib/foundation/metrics/exposition-total.ts";

let rabbit: RabbitmqService;
let api: ReportingApi;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-collector-cmd-"));
  [rabbit, api] = await Promise.all([services.rabbitmq(), startReportingApi(dir)]);
}, 120_000);
afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh vhost with `exchanges` declared, as the platform's services declare them before a collector binds. */
async function vhostWith(exchanges: readonly string[]): Promise<string> {
  const url = await rabbit.createVhost();
  await declareExchanges(url, exchanges);
  return url;
}

/** The sum of a counter's samples in an exposition. */
const total = expositionTotal;

describe("settings", () => {
  test("refused whole at start, each variable named, nothing dialled", async () => {
    const bare = await runProgram("cmd/collector.ts", [], { SVC_OSC_BATCH_MAX: "5000" });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(
      [
        "collector: SVC_OSC_AMQP_URL is required",
        'collector: SVC_OSC_BATCH_MAX takes an integer from 1 to 1000, got "5000"',
        "collector: see 'collector --help'",
        "",
      ].join("\n"),
    );
    const partial = await runProgram("cmd/collector.ts", [], {
      SVC_OSC_AMQP_URL: "http://user:hunter2@broker",
      SVC_OSC_REPORTING_URL: "http://api.example",
      SVC_OSC_EXCHANGES: "",
    });
    expect(partial.code).toBe(1);
    expect(partial.stderr.split("\n")).toEqual([
      "collector: SVC_OSC_AMQP_URL takes a URL with scheme amqp or amqps, not http",
      "collector: SVC_OSC_EXCHANGES names no exchange",
      "collector: SVC_OSC_CLOUD is required unless --dump is given",
      "collector: SVC_OSC_INGEST_TOKEN (or SVC_OSC_INGEST_TOKEN_FILE) is required unless --dump is given",
      "collector: SVC_OSC_OUTBOX_PATH is required unless --dump is given",
      "collector: SVC_OSC_REPORTING_URL takes an https URL (the ingest credential travels with every batch); set SVC_OSC_REPORTING_INSECURE=true for plain http",
      "collector: see 'collector --help'",
      "",
    ]);
    expect(partial.stderr).not.toContain("hunter2");
  });

  test("--help names the flag and every variable with its default", async () => {
    const help = await runProgram("cmd/collector.ts", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--dump");
    for (const variable of [
      "SVC_OSC_AMQP_URL",
      "SVC_OSC_QUEUE_TYPE",
      "SVC_OSC_OUTBOX_PATH",
      "SVC_OSC_SUMMARY_INTERVAL_S",
    ])
      expect(help.stdout).toContain(variable);
    expect(help.stdout).toMatch(/SVC_OSC_EXCHANGES\s+\(default: nova,neutron,platform_a,glance\)/);
  });

  test("a second collector on the same outbox exits 1 and the first keeps it", async () => {
    const url = await vhostWith(["nova"]);
    const first = await collectorProcess({ dir, amqpUrl: url, api });
    await first.daemon.start();
    try {
      const second = await runProgram("cmd/collector.ts", [], {
        SVC_OSC_AMQP_URL: url,
        SVC_OSC_REPORTING_URL: api.url,
        SVC_OSC_REPORTING_INSECURE: "true",
        SVC_OSC_INGEST_TOKEN: api.token,
        SVC_OSC_CLOUD: api.cloud,
        SVC_OSC_OUTBOX_PATH: first.outboxPath,
        SVC_OSC_QUEUE_TYPE: "classic",
        SVC_OSC_HTTP_PORT: "0",
      });
      expect(second.code).toBe(1);
      const fatal = JSON.parse(second.stdout.trim().split("\n").at(-1) ?? "{}");
      expect(fatal.msg).toBe("the collector cannot start");
      expect(fatal.err.message).toBe(`the outbox ${first.outboxPath} is in use by another process`);
      expect((await first.get("/healthz")).status).toBe(200);
    } finally {
      await first.daemon.stop();
    }
  });
});

describe("--dump", () => {
  test("prints what the broker delivers as JSON lines and nothing else, takes nothing from the collector's queue", async () => {
    const url = await vhostWith(["nova", "neutron"]);
    const proc = Bun.spawn(["bun", join(import.meta.dir, "collector.ts"), "--dump"], {
      env: { PATH: process.env.PATH ?? "", SVC_OSC_AMQP_URL: url, SVC_OSC_EXCHANGES: "nova,neutron,glance" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      let stderr = "";
      let stdout = "";
      void (async () => {
        for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
      })();
      const reading = (async () => {
        for await (const chunk of proc.stdout) stdout += new TextDecoder().decode(chunk);
      })();
      await until(
        () => stderr,
        (text) => text.includes("consuming from the broker"),
        30_000,
      );
      await publishLines(url, [
        {
          exchange: "nova",
          routing_key: "notifications.info",
          body: encodeEnvelope({
            message_id: "m-1",
            event_type: "compute.instance.create.end",
            timestamp: "2026-10-03 12:00:05.123456",
            payload: { instance_id: "i-1", admin_password: "hunter2" },
          }),
        },
        { exchange: "neutron", routing_key: "notifications.info", body: "not json" },
      ]);
      await until(
        () => stdout,
        (text) => text.split("\n").length > 2,
        30_000,
      );
      proc.kill("SIGTERM");
      const code = await proc.exited;
      await reading;
      expect(code).toBe(0);
      const lines = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines).toEqual([
        {
          exchange: "nova",
          routing_key: "notifications.info",
          oslo_version: "2.0",
          message: {
            message_id: "m-1",
            event_type: "compute.instance.create.end",
            timestamp: "2026-10-03 12:00:05.123456",
            payload: { instance_id: "i-1", admin_password: "[redacted]" },
          },
        },
        {
          exchange: "neutron",
          routing_key: "notifications.info",
          body_bytes: 8,
          problem: "the body is not JSON",
        },
      ]);
      expect(stderr).toContain("the exchange glance does not exist on the broker");
      expect(await queueDepth(url, "svc-notifications")).toBeNull();
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

describe("a simulator month end to end", () => {
  test("every event arrives in the reporting database exactly once and the counters equal the oracle's", async () => {
    const url = await vhostWith(declaredExchanges);
    const month = simulatedMonth({
      seed: 7,
      cloud: api.cloud,
      faults: ["duplicates", "refused-shapes"],
      exchanges: collectorExchanges,
    });
    const collector = await readyCollector({ dir, amqpUrl: url, api });
    try {
      expect(await collector.get("/readyz")).toEqual({ status: 200, text: "ok" });
      expect(await collector.get("/healthz")).toEqual({ status: 200, text: "ok" });
      await publishLines(url, month.lines);
      await untilDelivered(collector, api, month.events.length);
      expect(await api.storedEvents()).toEqual(month.events);
      const metrics = (await collector.get("/metrics")).text;
      expect({
        consumed: total(metrics, "svc_collector_consumed_total"),
        skipped: total(metrics, "svc_collector_skipped_total"),
        unparseable: total(metrics, "svc_collector_unparseable_total"),
      }).toEqual(month.expected);
      expect(month.expected.unparseable).toBeGreaterThan(0);
      // The oracle's counts: events recorded per project and type inside the month.
      const stored = await api.db.sql<{ project_id: string; event_type: string; count: number }[]>`
        select project_id, event_type, count(*)::int as count from events
        where timestamp >= ${month.oracle.period_from} and timestamp < ${month.oracle.period_to}
        group by project_id, event_type`;
      const key = (c: { project_id: string; event_type: string }) => `${c.project_id} ${c.event_type}`;
      expect(Object.fromEntries(stored.map((c) => [key(c), c.count]))).toEqual(
        Object.fromEntries(month.oracle.counts.map((c) => [key(c), c.count])),
      );
      expect(await queueDepth(url, "svc-notifications")).toBe(0);
      await until(
        () => collector.logLines().filter((l) => l.msg === "summary"),
        // A line written after the outbox drained.
        (lines) => lines.at(-1)?.buffered === 0,
      );
      const summary =
        collector
          .logLines()
          .filter((l) => l.msg === "summary")
          .at(-1) ?? {};
      expect(
        Object.keys(summary)
          .filter((k) => !["level", "time", "service", "msg"].includes(k))
          .sort(),
      ).toEqual([
        "buffered",
        "connected",
        "consumed",
        "delivered",
        "delivery_errors",
        "interval_seconds",
        "oldest_buffered_seconds",
        "skipped",
        "unparseable",
      ]);
      expect(summary).toMatchObject({ connected: true, buffered: 0, oldest_buffered_seconds: 0 });
      const summed = collector
        .logLines()
        .filter((l) => l.msg === "summary")
        .reduce((sum, l) => sum + Number(l.consumed), 0);
      expect(summed).toBeLessThanOrEqual(month.expected.consumed);
    } finally {
      await collector.daemon.stop();
    }
    expect(collector.daemon.running).toBe(false);
  }, 180_000);

  test("/metrics passes promtool, and answers 404 when metrics are off", async () => {
    const url = await vhostWith(["nova"]);
    const on = await collectorProcess({ dir, amqpUrl: url, api });
    await on.daemon.start();
    try {
      const exposition = await on.get("/metrics");
      expect(exposition.status).toBe(200);
      for (const name of [
        "svc_collector_consumed_total",
        "svc_collector_skipped_total",
        "svc_collector_unparseable_total",
        "svc_collector_redelivered_total",
        "svc_collector_buffer_depth",
      ])
        expect(exposition.text).toContain(`# TYPE ${name} `);
      expect(promtoolLint(exposition.text)).toBe("");
    } finally {
      await on.daemon.stop();
    }
    const off = await collectorProcess({ dir, amqpUrl: url, api, env: { SVC_METRICS_ENABLED: "false" } });
    await off.daemon.start();
    try {
      expect((await off.get("/metrics")).status).toBe(404);
    } finally {
      await off.daemon.stop();
    }
  });
});
