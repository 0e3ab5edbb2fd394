import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monthSource } from "./generate-month.ts";
import { clearMonthFiles } from "./month-files.ts";
import { runFileMode, writeMonthFiles } from "./run-file-mode.ts";
import { parseRunOptions } from "./run-options.ts";

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
 * so a change of order, of a draw or of a rendering shows here.
 */
const kept: [seed: number, tenants: number, faults: string, files: Record<string, string>][] = [
  [
    1,
    10,
    "",
    {
      "events.jsonl": "c95a43e3cf4f7813",
      "notifications.jsonl": "58ff91f9da88b698",
      "oracle.json": "a3f3cb588df9d3c3",
    },
  ],
  [
    7,
    12,
    "pre-existing,duplicates,reordering,refused-shapes,held-back",
    {
      "events.jsonl": "67e06539ad8d6811",
      "held-back.jsonl": "99920998559f38b3",
      "notifications.jsonl": "70e0f2b0d3c29344",
      "oracle.json": "192f06bc0a56cba7",
    },
  ],
  [
    3,
    25,
    "missing-create,duplicates,reordering,refused-shapes,held-back",
    {
      "events.jsonl": "58bac58b52a17821",
      "held-back.jsonl": "7ddd24b3210aaca2",
      "notifications.jsonl": "261b455bec7d8fcc",
      "oracle.json": "7811fa819cbfd692",
    },
  ],
  [
    2,
    3,
    "reordering",
    {
      "events.jsonl": "7fce88aa820d8517",
      "notifications.jsonl": "61b72e912c0e987f",
      "oracle.json": "1fcacf7378af2ac8",
    },
  ],
  [
    5,
    40,
    "duplicates,held-back",
    {
      "events.jsonl": "8161cca1fa293ca2",
      "held-back.jsonl": "aaab076f1788c020",
      "notifications.jsonl": "ba6a49f62c8c5fe8",
      "oracle.json": "16103d7ad3edabd4",
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
