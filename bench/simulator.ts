// Notifications per second of `simulator run --out` for a month of at least 10,000 instances, and the
// peak memory of that command (its own process, so nothing this script holds counts). Baseline in the
// same run: writing the same lines of notifications.jsonl from strings already in memory (the first
// 250,000 lines of a larger month), the floor any file mode pays. CPU seconds are printed beside wall
// seconds: on a shared machine the wall clock says as much about the neighbours as about the code.
// With --broker: the same month published on a private RabbitMQ at --factor 0, against publishing the
// same lines with confirms from memory (harness/collector/publisher.ts) in the same run.
// Then (unless --no-breakdown) the same command again under bun's --cpu-prof, its samples sorted into
// the stages of the file mode by the nearest frame of ours on each stack, printed as a share of the
// samples and as microseconds of the timed run's CPU per notification: an estimate (the profiler sees
// the JavaScript thread only, and under load its samples also count time spent waiting for a core).
// Usage: bun bench/simulator.ts [--tenants N] [--faults list] [--broker] [--no-breakdown]
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { publishLines } from "../harness/collector/publisher.ts";
import { startService } from "../harness/services/services.ts";
import { consumeBus } from "../harness/simulator/bus-consumer.ts";
import type { NotificationLine } from "../lib/billing/simulator/notification-line.ts";
import { monthExchanges, runBrokerMode } from "../lib/billing/simulator/run-broker-mode.ts";
import { parseRunOptions } from "../lib/billing/simulator/run-options.ts";
import { writeLines } from "../lib/foundation/files/line-sink.ts";
import { createLogger } from "../lib/foundation/log/logger.ts";

const { values } = parseArgs({
  options: {
    tenants: { type: "string", default: "1150" },
    faults: { type: "string", default: "" },
    broker: { type: "boolean", default: false },
    breakdown: { type: "boolean", default: true },
  },
  allowNegative: true,
});
const options = parseRunOptions(
  { period: "2026-10", seed: "1", tenants: values.tenants, faults: values.faults, factor: "0" },
  new Date(),
);
const baselineLines = 250_000;

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

/** Reads a file's lines in chunks, up to `limit` lines, and counts `needle` in every chunk read. */
async function scan(path: string, limit: number, needle = ""): Promise<{ lines: string[]; count: number }> {
  const lines: string[] = [];
  let count = 0;
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of Bun.file(path).stream()) {
    const text = tail + decoder.decode(chunk, { stream: true });
    if (needle !== "") count += text.split(needle).length - 1 - (tail.split(needle).length - 1);
    const parts = text.split("\n");
    tail = parts.pop() ?? "";
    for (const line of parts) if (lines.length < limit && line !== "") lines.push(line);
    if (needle === "" && lines.length >= limit) break;
  }
  return { lines, count };
}

/** One `simulator run --out` as its own process, bun flags before the script (a profiler). */
async function simulate(out: string, bunFlags: string[]) {
  const wall = performance.now();
  const child = Bun.spawn(
    [
      process.execPath,
      ...bunFlags,
      join(import.meta.dir, "../cmd/simulator.ts"),
      "run",
      "--period",
      options.period.name,
      "--seed",
      String(options.seed),
      "--tenants",
      String(options.scale.tenants),
      ...(values.faults === "" ? [] : ["--faults", values.faults]),
      "--out",
      out,
    ],
    {
      env: { ...process.env, SVC_SIM_CLOUD: "bench", SVC_LOG_LEVEL: "INFO" },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const log = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`simulator run failed: ${log}`);
  return { log, seconds: (performance.now() - wall) / 1000, usage: child.resourceUsage() };
}

/**
 * The stage a frame of ours belongs to; undefined for a frame any stage calls (the PRNG, the
 * catalog, time and event helpers, the runtime), which passes the sample on to its caller.
 */
function stageOf(fn: string, url: string): string | undefined {
  const file = url.slice(url.lastIndexOf("/") + 1);
  if (
    file === "external-sort.ts" ||
    file === "record-sort.ts" ||
    file === "byte-record.ts" ||
    file === "month-record.ts" ||
    file === "stream-entry-codec.ts" ||
    fn === "compareEntries"
  ) {
    return "sort and spill";
  }
  if (fn === "compareCounts" || fn === "compareTraffic") return "sort and spill";
  if (file === "line-sink.ts" || file === "month-files.ts") return "write files";
  if (file === "oracle-document.ts" || fn === "writeOracle") return "oracle";
  if (url.includes("/lib/oslo/")) return "map events (lib/billing/oslo)";
  if (fn === "stepInputs" || fn === "resourceEntries" || fn === "reorderCandidate") return "generate";
  if (
    file === "message-template.ts" ||
    file === "render-step.ts" ||
    file === "notification-context.ts" ||
    file === "notification-line.ts" ||
    file.endsWith("-notification.ts") ||
    fn === "entryDelivery" ||
    fn === "entryLines" ||
    fn === "twinBody"
  ) {
    return "render notifications";
  }
  if (file === "month-stream.ts") return "fault switches";
  if (file === "generate-month.ts" || file === "resource-builder.ts" || file === "oracle.ts")
    return "generate";
  if (file === "run-file-mode.ts") return "file mode loop";
  return undefined;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Share of a --cpu-prof profile's sampled time per stage (`stageOf` of the nearest frame that has one). */
async function stageShares(profileDir: string): Promise<Map<string, number>> {
  const [name] = (await readdir(profileDir)).filter((f) => f.endsWith(".cpuprofile"));
  if (name === undefined) throw new Error("bun --cpu-prof wrote no profile");
  const profile = (await Bun.file(join(profileDir, name)).json()) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const parent = new Map<number, number>();
  const nodes = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    nodes.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stageOfNode = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id) as ProfileNode;
    const up = parent.get(id);
    const stage =
      stageOf(node.callFrame.functionName, node.callFrame.url) ??
      (up === undefined ? "startup, imports, runtime" : resolve(up));
    stageOfNode.set(id, stage);
    return stage;
  };
  const time = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const stage = resolve(id);
    time.set(stage, (time.get(stage) ?? 0) + dt);
    total += dt;
  });
  return new Map([...time].sort((a, b) => b[1] - a[1]).map(([stage, t]) => [stage, t / total]));
}

const dir = await mkdtemp(join(tmpdir(), "svc-sim-bench-"));
try {
  const load = (await Bun.file("/proc/loadavg").text()).split(" ")[0];
  const { log, seconds, usage } = await simulate(dir, []);
  const report = JSON.parse(log.trim().split("\n").pop() ?? "{}") as {
    published: number;
    held: number;
    events: number;
    resources: number;
  };
  const notificationsPath = join(dir, "notifications.jsonl");
  const bytes = (await stat(notificationsPath)).size;
  const instances = (await scan(join(dir, "oracle.json"), 0, '"resource_type": "instance"')).count;

  const { lines } = await scan(notificationsPath, baselineLines);
  const baseline = await timed(() => writeLines(join(dir, "baseline.jsonl"), lines));
  await rm(join(dir, "baseline.jsonl"));

  const notifications = report.published + report.held;
  const cpu = Number(usage?.cpuTime.total ?? 0n) / 1e6;
  const baselineRate = lines.length / baseline.seconds;
  const figures: Record<string, unknown> = {
    load_1m: Number(load),
    tenants: options.scale.tenants,
    instances,
    resources: report.resources,
    notifications,
    events: report.events,
    notifications_mib: Math.round(bytes / 2 ** 20),
    seconds: round(seconds),
    cpu_seconds: round(cpu),
    notifications_per_second: Math.round(notifications / seconds),
    baseline_lines: lines.length,
    baseline_write_per_second: Math.round(baselineRate),
    ratio_to_baseline: round(notifications / seconds / baselineRate, 3),
    cpu_ratio_to_baseline: round(baseline.cpu / lines.length / (cpu / notifications), 3),
    peak_rss_mib: Math.round((usage?.maxRSS ?? 0) / 2 ** 20),
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
  if (values.breakdown) {
    const profileDir = join(dir, "profile");
    const profiled = await simulate(join(dir, "profiled"), [`--cpu-prof-dir=${profileDir}`, "--cpu-prof"]);
    figures.profiled_seconds = round(profiled.seconds);
    const perNotification = (cpu * 1e6) / notifications;
    figures.cpu_us_per_notification = round(perNotification, 1);
    figures.breakdown = Object.fromEntries(
      [...(await stageShares(profileDir))].map(([stage, share]) => [
        stage,
        { share: round(share, 3), cpu_us_per_notification: round(share * perNotification, 1) },
      ]),
    );
  }
  console.log(JSON.stringify(figures));
} finally {
  await rm(dir, { recursive: true, force: true });
}
