import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProgram } from "../harness/process/run-program.ts";
import { ratedCsvHeader } from "../lib/billing/engine/export-run.ts";

setDefaultTimeout(60_000);

const base = await mkdtemp(join(tmpdir(), "svc-sim-compare-"));
afterAll(() => rm(base, { recursive: true, force: true }));
const pricing = join(import.meta.dir, "../pricing/default.yaml");

// The agreeing case (zero differences) is the engine's acceptance test; here the command's own contract.
test("compare exits 1 with the count on stderr when resources differ, and refuses inputs it cannot read with exit 1", async () => {
  const month = join(base, "month");
  const made = await runProgram(
    "cmd/simulator.ts",
    ["run", "--period", "2026-10", "--tenants", "1", "--out", month],
    {
      SVC_SIM_CLOUD: "cloud-1",
    },
  );
  expect(made.code).toBe(0);
  const empty = join(base, "empty-export");
  await mkdir(empty, { recursive: true });
  await Bun.write(join(empty, "rated.csv"), `${ratedCsvHeader}\n`);
  const oracle = join(month, "oracle.json");
  const r = await runProgram("cmd/simulator.ts", [
    "compare",
    "--export",
    empty,
    "--oracle",
    oracle,
    "--pricing",
    pricing,
  ]);
  expect(r.code).toBe(1);
  const count = Number(/^(\d+) resources differ\n$/.exec(r.stderr)?.[1]);
  expect(count).toBeGreaterThan(50);
  const lines = r.stdout.trim().split("\n");
  expect(lines).toHaveLength(count + 1);
  expect(lines.at(-1)).toBe(`compared ${count} resources: ${count} differ (0 marked missing-create)`);
  expect(lines[0]).toMatch(/^floating_ip\/\S+: \S+\/hours oracle \d+\.\d\d \(\d+\.\d{6}\) export -$/);

  const missing = await runProgram("cmd/simulator.ts", ["compare", "--export", empty, "--pricing", pricing]);
  expect([missing.code, missing.stdout, missing.stderr]).toEqual([
    1,
    "",
    "simulator: --oracle is required\nsimulator: see 'simulator compare --help'\n",
  ]);
  const unreadable = await runProgram("cmd/simulator.ts", [
    "compare",
    "--export",
    join(base, "nowhere"),
    "--oracle",
    oracle,
    "--pricing",
    pricing,
  ]);
  expect([unreadable.code, unreadable.stdout]).toEqual([1, ""]);
  expect(unreadable.stderr).toStartWith(
    `simulator: the export's rated.csv ${JSON.stringify(join(base, "nowhere", "rated.csv"))} cannot be read (ENOENT)\n`,
  );
});

test("compare --registry: statements only the oracle states differ, exit 1 naming them; a correction's credit notes against --corrects", async () => {
  const month = join(base, "month");
  const oracle = join(month, "oracle.json");
  if (!(await Bun.file(oracle).exists()))
    await runProgram("cmd/simulator.ts", ["run", "--period", "2026-10", "--tenants", "1", "--out", month], {
      SVC_SIM_CLOUD: "cloud-1",
    });
  const exported = join(base, "registry-export");
  await mkdir(exported, { recursive: true });
  await Bun.write(join(exported, "rated.csv"), `${ratedCsvHeader}\n`);
  await Bun.write(join(exported, "run.json"), JSON.stringify({ statements: [] }));
  await Bun.write(join(exported, "kickbacks.json"), JSON.stringify({ beneficiaries: [] }));
  const registry = join(base, "registry.json");
  await Bun.write(
    registry,
    JSON.stringify({
      projects: [],
      relations: [],
      adjustment_relation_types: ["managed_by", "member_of"],
      adjustment_depth: 3,
    }),
  );
  const args = [
    "compare",
    "--export",
    exported,
    "--oracle",
    oracle,
    "--pricing",
    pricing,
    "--registry",
    registry,
  ];
  const r = await runProgram("cmd/simulator.ts", args);
  expect(r.code).toBe(1);
  const lines = r.stdout.trim().split("\n");
  // One classic tenant and the two infrastructure tenants, unregistered: each its own statement.
  expect(lines.at(-1)).toBe("compared 3 statements and 0 kickback settlements: 3 differ");
  expect(lines.at(-2)).toMatch(/^statement cloud-1\/[0-9a-f]{32}: total oracle \d+\.\d\d export -$/);
  expect(r.stderr).toMatch(/^\d+ resources differ\n3 statements or settlements differ\n$/);

  // A correction's export: refused without the export of the run it corrects, or with another's.
  await Bun.write(join(exported, "run.json"), JSON.stringify({ statements: [], run_id: "f1" }));
  const corrected = join(base, "correction-export");
  await mkdir(corrected, { recursive: true });
  await Bun.write(join(corrected, "rated.csv"), `${ratedCsvHeader}\n`);
  await Bun.write(
    join(corrected, "run.json"),
    JSON.stringify({ run_id: "c1", corrects_run_id: "f1", credit_notes: [] }),
  );
  await Bun.write(join(corrected, "kickbacks.json"), JSON.stringify({ beneficiaries: [] }));
  const correctionArgs = args.map((a) => (a === exported ? corrected : a));
  const alone = await runProgram("cmd/simulator.ts", correctionArgs);
  expect([alone.code, alone.stdout]).toEqual([1, ""]);
  expect(alone.stderr).toStartWith(
    "simulator: the export is a correction's (credit notes): name the export of the run it corrects with --corrects <dir>\n",
  );
  const other = await runProgram("cmd/simulator.ts", [...correctionArgs, "--corrects", corrected]);
  expect([other.code, other.stdout]).toEqual([1, ""]);
  expect(other.stderr).toStartWith(
    "simulator: --corrects names the export of run c1, but the correction corrects run f1\n",
  );
  // The finalized run billed nothing, so each project's whole statement is the note it lacks.
  const notes = await runProgram("cmd/simulator.ts", [...correctionArgs, "--corrects", exported]);
  expect(notes.code).toBe(1);
  const noteLines = notes.stdout.trim().split("\n");
  expect(noteLines.at(-1)).toBe("compared 0 credit notes and 0 kickback settlements: 3 differ");
  expect(noteLines.at(-2)).toMatch(
    /^credit note cloud-1\/[0-9a-f]{32}: base oracle \d+\.\d\d export 0\.00; net oracle \d+\.\d\d export 0\.00; total oracle \d+\.\d\d export 0\.00$/,
  );
});
