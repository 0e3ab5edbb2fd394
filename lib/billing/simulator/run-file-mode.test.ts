import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateMonth, monthSource } from "./generate-month.ts";
import { clearMonthFiles } from "./month-files.ts";
import { monthStream } from "./month-stream.ts";
import { buildOracle } from "./oracle.ts";
import { readOracle } from "./oracle-document.ts";
import { runFileMode, writeMonthFiles } from "./run-file-mode.ts";
import { parseRunOptions } from "./run-options.ts";
import { streamEvents } from "./stream-events.ts";

// Whole months are written here; a busy shared machine can take seconds per month.
setDefaultTimeout(120_000);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-sim-file-mode-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function digests(out: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of (await readdir(out)).sort()) {
    const hasher = new Bun.CryptoHasher("sha256");
    hasher.update(await Bun.file(join(out, name)).arrayBuffer());
    found[name] = hasher.digest("hex").slice(0, 16);
  }
  return found;
}

/**
 * The files of these months, byte for byte, as the in-memory file mode wrote them before the
 * streaming one replaced it (decision 245): seeds, scales and switches that exercise every fault,
 * so a change of order, of a draw or of a rendering shows here. Moved since: every `oracle.json` by
 * its `format` (4 to 5, decision 288, nothing else in it), and the `notifications.jsonl` of the two
 * months with refused-shapes by their versioned twins alone, now rendered as nova's full versioned
 * notification (decision 287); every `events.jsonl` stayed. Moved since, all four files of every
 * month: an image's `disk_format` and a load balancer's `flavor` in their sizes, octavia's `flavor_id`
 * in its notifications, and `oracle.json` format 6 (decision 296); only sizes moved, no event, instant
 * or other draw.
 */
const kept: [seed: number, tenants: number, faults: string, files: Record<string, string>][] = [
  [
    1,
    10,
    "",
    {
      "events.jsonl": "2537fb26b6e01167",
      "notifications.jsonl": "f9d08196fe259069",
      "oracle.json": "cdac94dcad81b734",
    },
  ],
  [
    7,
    12,
    "pre-existing,duplicates,reordering,refused-shapes,held-back",
    {
      "events.jsonl": "c488d006c6745e7f",
      "held-back.jsonl": "1736be40a3755c55",
      "notifications.jsonl": "f4968f8ba0d936bf",
      "oracle.json": "a2fcbf39fa34b289",
    },
  ],
  [
    3,
    25,
    "missing-create,duplicates,reordering,refused-shapes,held-back",
    {
      "events.jsonl": "7e9b10ad6b59fc2b",
      "held-back.jsonl": "7ddd24b3210aaca2",
      "notifications.jsonl": "0179fc19cb43fb71",
      "oracle.json": "458748ea8c7f84e7",
    },
  ],
  [
    2,
    3,
    "reordering",
    {
      "events.jsonl": "5cd7996f8e489e0f",
      "notifications.jsonl": "79631b59f6b6d2b9",
      "oracle.json": "f5cb82e0a24c0df9",
    },
  ],
  [
    5,
    40,
    "duplicates,held-back",
    {
      "events.jsonl": "600ad921d61e73a7",
      "held-back.jsonl": "aaab076f1788c020",
      "notifications.jsonl": "a5fb819a2c1b000b",
      "oracle.json": "adaf663647453b9f",
    },
  ],
];

for (const [seed, tenants, faults, files] of kept) {
  test(`seed ${seed}, ${tenants} tenants, faults [${faults}]: the files are the kept ones`, async () => {
    const out = join(dir, `seed-${seed}`);
    const options = parseRunOptions(
      { period: "2026-10", seed: String(seed), tenants: String(tenants), faults },
      new Date(),
    );
    await runFileMode(options, "cloud-1", out);
    expect(await digests(out)).toEqual(files);
  });
}

for (const [seed, tenants, faults, files] of kept.slice(1, 3)) {
  test(`seed ${seed}, ${tenants} tenants, faults [${faults}]: the same files when every sort spills to disk`, async () => {
    const out = join(dir, `spilled-${seed}`);
    const options = parseRunOptions(
      { period: "2026-10", seed: String(seed), tenants: String(tenants), faults },
      new Date(),
    );
    await clearMonthFiles(out);
    const report = await writeMonthFiles({
      source: monthSource({ seed, period: options.period, cloud: "cloud-1", scale: options.scale }),
      seed,
      period: options.period,
      cloud: "cloud-1",
      faults: options.faults,
      out,
      memoryBytes: 128 * 1024,
    });
    expect(report?.paths.length).toBe(Object.keys(files).length);
    // Nothing but the month is left behind: the sort runs are gone.
    expect(await digests(out)).toEqual(files);
  });
}

test("nova sending both, with snapshots and backups: events.jsonl is what a collector books of notifications.jsonl", async () => {
  const out = join(dir, "both-copies");
  const options = parseRunOptions(
    {
      period: "2026-10",
      seed: "4",
      tenants: "4",
      faults: "duplicates,refused-shapes,held-back",
      "nova-format": "both",
      "extra-types": "volume_snapshot,volume_backup",
    },
    new Date(),
  );
  const report = await runFileMode(options, "cloud-1", out);
  const read = async (name: string) =>
    (await Bun.file(join(out, name)).text())
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
  const lines = [...(await read("notifications.jsonl")), ...(await read("held-back.jsonl"))];
  expect(report?.published).toBe((await read("notifications.jsonl")).length);
  expect(lines.filter((l) => l.routing_key === "versioned_notifications.info").length).toBeGreaterThan(100);
  expect(await read("events.jsonl")).toEqual([...streamEvents(lines, "cloud-1")]);
  const month = generateMonth({
    seed: 4,
    period: options.period,
    cloud: "cloud-1",
    scale: options.scale,
    extraTypes: options.extraTypes,
  });
  const oracle = readOracle(await Bun.file(join(out, "oracle.json")).text());
  expect(oracle.resources.map((r) => r.resource_type)).toContain("volume_snapshot");
  expect(oracle.resources.map((r) => r.resource_type)).toContain("volume_backup");
  const stream = monthStream(month, options.faults, "both");
  expect(oracle).toEqual(buildOracle(month, options.faults, stream.marks));
});
