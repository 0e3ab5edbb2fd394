// Notifications per second of `simulator run --out` for a month of at least 10,000 instances, and the
// peak memory. Baseline in the same run: writing the same bytes of notifications.jsonl from strings
// already in memory, the floor any file mode pays. CPU seconds are printed beside wall seconds: on a
// shared machine the wall clock says as much about the neighbours as about the code.
// With --broker: the same month published on a private RabbitMQ at --factor 0, against publishing the
// same lines with confirms from memory (lib/collector/testing/publisher.ts) in the same run.
// Usage: bun bench/simulator.ts [--tenants N] [--faults list] [--broker]
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startService } from "../harness/services/services.ts";
import { publishLines } from "../lib/collector/testing/publisher.ts";
import { createLogger } from "../lib/log/logger.ts";
import { generateMonth } from "../lib/simulator/generate-month.ts";
import { writeLines } from "../lib/simulator/month-files.ts";
import type { NotificationLine } from "../lib/simulator/notification-line.ts";
import { monthExchanges, runBrokerMode } from "../lib/simulator/run-broker-mode.ts";
import { runFileMode } from "../lib/simulator/run-file-mode.ts";
import { parseRunOptions } from "../lib/simulator/run-options.ts";
import { consumeBus } from "../lib/simulator/testing/bus-consumer.ts";

const { values } = parseArgs({
  options: {
    tenants: { type: "string", default: "1150" },
    faults: { type: "string", default: "" },
    broker: { type: "boolean", default: false },
  },
});
const options = parseRunOptions(
  { period: "2026-10", seed: "1", tenants: values.tenants, faults: values.faults, factor: "0" },
  new Date(),
);
const instances = generateMonth({
  seed: 1,
  period: options.period,
  cloud: "bench",
  scale: options.scale,
}).resources.filter((r) => r.resource_type === "instance").length;
Bun.gc(true);

function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; cpu: number }> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return work().then((result) => {
    const used = process.cpuUsage(cpu);
    return {
      result,
      seconds: (performance.now() - wall) / 1000,
      cpu: (used.user + used.system) / 1e6,
    };
  });
}

const round = (n: number, places = 2) => Number(n.toFixed(places));

const dir = await mkdtemp(join(tmpdir(), "svc-sim-bench-"));
try {
  const run = await timed(() => runFileMode(options, "bench", dir));
  const report = run.result;
  if (report === null) throw new Error("the run was stopped");
  const peakMb = process.resourceUsage().maxRSS / 1024;
  const notificationsPath = join(dir, "notifications.jsonl");
  const bytes = (await stat(notificationsPath)).size;

  const lines = (await Bun.file(notificationsPath).text()).split("\n").filter((l) => l !== "");
  const baseline = await timed(() => writeLines(join(dir, "baseline.jsonl"), lines));

  const notifications = report.published + report.held;
  const figures: Record<string, unknown> = {
    tenants: options.scale.tenants,
    instances,
    resources: report.resources,
    notifications,
    events: report.events,
    notifications_mib: Math.round(bytes / 2 ** 20),
    seconds: round(run.seconds),
    cpu_seconds: round(run.cpu),
    notifications_per_second: Math.round(notifications / run.seconds),
    baseline_write_per_second: Math.round(lines.length / baseline.seconds),
    ratio_to_baseline: round(
      lines.length / baseline.seconds > 0
        ? notifications / run.seconds / (lines.length / baseline.seconds)
        : 0,
      3,
    ),
    cpu_ratio_to_baseline: round(baseline.cpu / lines.length / (run.cpu / notifications), 3),
    peak_rss_mib: Math.round(peakMb),
  };

  if (values.broker) {
    const rabbit = await startService("rabbitmq");
    try {
      const url = await rabbit.createVhost();
      const consumer = await consumeBus(url, monthExchanges);
      const logger = createLogger({ service: "svc-simulator-bench", level: "ERROR" });
      const published = await timed(() =>
        runBrokerMode({
          options: { ...options, waitForCollectorMs: 0 },
          cloud: "bench",
          amqpUrl: url,
          listen: { hostname: "127.0.0.1", port: 0 },
          metricsEnabled: true,
          logger,
          signal: new AbortController().signal,
        }),
      );
      await consumer.waitFor(published.result.published, 600_000);
      await consumer.close();
      const parsed = lines.map((l) => JSON.parse(l) as NotificationLine);
      const raw = await timed(() => publishLines(url, parsed));
      figures.broker_published = published.result.published;
      figures.broker_seconds = round(published.seconds);
      figures.broker_published_per_second = Math.round(published.result.published / published.seconds);
      figures.raw_publish_per_second = Math.round(parsed.length / raw.seconds);
      figures.broker_ratio_to_raw_publish = round(
        published.result.published / published.seconds / (parsed.length / raw.seconds),
        3,
      );
    } finally {
      await rabbit.stop();
    }
  }
  console.log(JSON.stringify(figures));
} finally {
  await rm(dir, { recursive: true, force: true });
}
