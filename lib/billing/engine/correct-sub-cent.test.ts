import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineTestStack, engineTestStack } from "../../../harness/engine/engine-test-stack.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { correctionReport, correctPeriod } from "./correct-period.ts";
import { exportRun } from "./export-run.ts";
import { finalizePeriod } from "./finalize-period.ts";
import { runPeriod } from "./run-period.ts";

/**
 * A month where a late event moves a quantity by less than a cent's worth (docs/engine.md#correction-rules,
 * rule 1; decision 426): the correction stores only non-zero deltas, so such a line stores nothing, no
 * note lists it, and the corrected `rated.csv` keeps its finalized quantity.
 */
const model = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);
const period = parsePeriod("2026-10");
const after = new Date("2026-11-02T00:00:00Z");
const walk = { relationTypes: ["managed_by", "member_of"], depth: 3 };
const active = { state: "active", size: { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" } };
let stack: EngineTestStack;
let dir: string;

async function insertEvents(
  events: [id: string, at: string, type: string, resource: string, payload: object][],
) {
  await stack.reportingDb.partitions.ensureFor(events.map((e) => e[1]));
  for (const [id, at, type, resource, payload] of events) {
    await stack.reportingDb.sql`insert into events (event_id, timestamp, event_type, platform, cloud,
      resource_type, resource_id, project_id, source, payload) values (${id}, ${at}, ${type}, 'platform_a',
      'c1', 'instance', ${resource}, 'p1', 'collector', ${JSON.stringify(payload)})`;
  }
}

const deps = () => ({ engine: stack.engine, reporting: stack.reporting, counters: null });
const lineCount = async (runId: string) =>
  (
    await stack.engine.sql<
      { n: number }[]
    >`select count(*)::int as n from line_deltas where run_id = ${runId}`
  )[0]?.n;
const csvLines = (sub: string) =>
  readFileSync(join(dir, sub, "rated.csv"), "utf8")
    .split("\n")
    .filter((l) => l.includes(",i1,") || l.includes(",i2,"));

beforeAll(async () => {
  stack = await engineTestStack();
  dir = mkdtempSync(join(tmpdir(), "svc-engine-sub-cent-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stack.dispose();
});

describe("a quantity moved by less than a cent's worth (decision 426)", () => {
  let finalizedId = "";

  test("the month is run and finalized: two instances billed the whole month", async () => {
    await insertEvents([
      ["i1-c", "2026-09-01T00:00:00Z", "compute.instance.create.end", "i1", active],
      ["i2-c", "2026-09-01T00:00:00Z", "compute.instance.create.end", "i2", active],
    ]);
    finalizedId = (await runPeriod({ ...deps(), statements: walk }, period, model, after)).runId;
    await finalizePeriod(stack.engine.sql, period, finalizedId);
    await exportRun(stack.engine.sql, finalizedId, "csv", join(dir, "finalized"));
  });

  test("a late delete two seconds before the month's end moves no amount: no deltas, nothing stored", async () => {
    // 2 s of 2 vcpus at 0.0125 per vcpu-hour is 0.0000139: every line rounds to the same cents.
    await insertEvents([["i1-d", "2026-10-31T23:59:58Z", "compute.instance.delete.end", "i1", {}]]);
    expect(correctionReport(await correctPeriod(deps(), period), period)).toEqual([
      "no deltas: the finalized numbers of 2026-10 stand",
    ]);
  });

  test("with a late event that moves money beside it, only the lines whose amount moved are stored and noted", async () => {
    await insertEvents([["i2-d", "2026-10-21T00:00:00Z", "compute.instance.delete.end", "i2", {}]]);
    const result = await correctPeriod(deps(), period);
    if (result.kind !== "stored") throw new Error("expected a stored correction");
    expect(correctionReport(result, period)[2]).toBe("3 deltas and 0 adjustment deltas in 1 credit notes");
    expect(await lineCount(result.runId)).toBe(3);
    const note = result.computed.notes[0];
    expect(note?.lines.map((l) => `${l.resource_id} ${l.dimension} ${l.delta.toFixed(2)}`)).toEqual([
      "i2 disk_gb -1.48",
      "i2 ram_gb -4.44",
      "i2 vcpus -6.60",
    ]);
    // The corrected lines: i1 keeps its finalized quantity (744 hours), i2 stands at 480 hours.
    await exportRun(stack.engine.sql, result.runId, "csv", join(dir, "corrected"));
    const [finalized, corrected] = [csvLines("finalized"), csvLines("corrected")];
    expect(corrected.filter((l) => l.includes(",i1,"))).toEqual(finalized.filter((l) => l.includes(",i1,")));
    expect(
      corrected.filter((l) => l.includes(",i2,")).map((l) => l.split(",").slice(5, 9).join(",")),
    ).toEqual([
      "disk_gb,19200.000000,0.000140,2.69",
      "ram_gb,1920.000000,0.004200,8.06",
      "vcpus,960.000000,0.012500,12.00",
    ]);
  });
});
