// Notifications per second of `simulator run --out` for a month of at least 10,000 instances, and the
// peak memory. Baseline in the same run: writing the same bytes of notifications.jsonl from strings
// already in memory, the floor any file mode pays.
// Usage: bun bench/simulator.ts [--tenants N] [--faults list]
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generateMonth } from "../lib/simulator/generate-month.ts";
import { writeLines } from "../lib/simulator/month-files.ts";
import { runFileMode } from "../lib/simulator/run-file-mode.ts";
import { parseRunOptions } from "../lib/simulator/run-options.ts";

const { values } = parseArgs({
  options: { tenants: { type: "string", default: "1150" }, faults: { type: "string", default: "" } },
});
const options = parseRunOptions(
  { period: "2026-10", seed: "1", tenants: values.tenants, faults: values.faults },
  new Date(),
);
const instances = generateMonth({
  seed: 1,
  period: options.period,
  cloud: "bench",
  scale: options.scale,
}).resources.filter((r) => r.resource_type === "instance").length;
Bun.gc(true);

const dir = await mkdtemp(join(tmpdir(), "svc-sim-bench-"));
try {
  const started = performance.now();
  const report = await runFileMode(options, "bench", dir);
  if (report === null) throw new Error("the run was stopped");
  const seconds = (performance.now() - started) / 1000;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  const notificationsPath = join(dir, "notifications.jsonl");
  const bytes = (await stat(notificationsPath)).size;

  const lines = (await Bun.file(notificationsPath).text()).split("\n").filter((l) => l !== "");
  const baselineStarted = performance.now();
  await writeLines(join(dir, "baseline.jsonl"), lines);
  const baselineSeconds = (performance.now() - baselineStarted) / 1000;

  const notifications = report.published + report.held;
  const rate = notifications / seconds;
  const baselineRate = lines.length / baselineSeconds;
  console.log(
    JSON.stringify({
      tenants: options.scale.tenants,
      instances,
      resources: report.resources,
      notifications,
      events: report.events,
      notifications_mib: Math.round(bytes / 2 ** 20),
      seconds: Number(seconds.toFixed(2)),
      notifications_per_second: Math.round(rate),
      baseline_write_per_second: Math.round(baselineRate),
      ratio_to_baseline: Number((rate / baselineRate).toFixed(3)),
      peak_rss_mib: Math.round(peakMb),
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
