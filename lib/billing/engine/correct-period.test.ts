import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineTestStack, engineTestStack } from "../../../harness/engine/engine-test-stack.ts";
import { type FreshDatabase, freshDatabase } from "../../../harness/reporting/fresh-database.ts";
import { decimal, formatMoney, zero } from "../../foundation/money/decimal.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { MoneyInvariantError } from "../statements/money-invariants.ts";
import { type CorrectionResult, correctionReport, correctPeriod } from "./correct-period.ts";
import { detectLate, lateLines } from "./detect-late.ts";
import { type EngineDatabase, migrateEngine, openEngineDatabase } from "./engine-database.ts";
import { exportLines, exportRun } from "./export-run.ts";
import { finalizedLine, finalizePeriod } from "./finalize-period.ts";
import { kickbackReport } from "./kickback-report.ts";
import { finalizedChain, requireRun } from "./run-lookup.ts";
import { runPeriod } from "./run-period.ts";

const model = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);
const period = parsePeriod("2026-10");
const after = new Date("2026-11-02T00:00:00Z");
const walk = { relationTypes: ["managed_by", "member_of"], depth: 3 };
let stack: EngineTestStack;
let dir: string;
/** A second engine database: a run there over the complete month is what the corrections must reach. */
let completeDb: FreshDatabase;
let complete: EngineDatabase;

/** A regular run over the complete month in the second database, as it stands now. */
async function completeRun(): Promise<string> {
  const run = await runPeriod(
    { engine: complete, reporting: stack.reporting, counters: null, statements: walk },
    period,
    model,
    after,
  );
  return run.runId;
}

const size = { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" };
const active = { state: "active", size };

async function insertEvents(
  events: [id: string, at: string, type: string, resource: string, project: string, payload: object][],
) {
  await stack.reportingDb.partitions.ensureFor(events.map((e) => e[1]));
  for (const [id, at, type, resource, project, payload] of events) {
    const resourceType = type.startsWith("volume") ? "volume" : "instance";
    await stack.reportingDb.sql`insert into events (event_id, timestamp, event_type, platform, cloud,
      resource_type, resource_id, project_id, source, payload) values (${id}, ${at}, ${type}, 'platform_a',
      'c1', ${resourceType}, ${resource}, ${project}, 'collector', ${JSON.stringify(payload)})`;
  }
}

/**
 * The registry: p1 under a reseller (a discount on everything, a surcharge on volumes), p2 and the
 * cluster manager cm with a partner's kickback, tenant t1 attributed to cm, p3 not registered.
 */
async function registry() {
  const sql = stack.reportingDb.sql;
  const id = async (platform: string, cloud: string, external: string) =>
    (
      await sql<{ id: string }[]>`insert into projects (platform, cloud, external_id)
        values (${platform}, ${cloud}, ${external}) returning id::text`
    )[0]?.id;
  const [p1, p2, t1, cm, meta, acme] = [
    await id("platform_a", "c1", "p1"),
    await id("platform_a", "c1", "p2"),
    await id("platform_a", "c1", "t1"),
    await id("platform_a", "c1", "cm"),
    await id("meta", "meta", "reseller"),
    await id("partner", "partner", "acme"),
  ];
  const relate = async (source: unknown, target: unknown, type: string, adjustments?: object[]) => {
    const metadata = JSON.stringify(adjustments === undefined ? {} : { pricing_adjustments: adjustments });
    await sql`insert into project_relations (source_id, target_id, relation_type, metadata, valid_from)
      values (${source as string}, ${target as string}, ${type}, ${metadata}, '2026-01-01T00:00:00Z')`;
  };
  await relate(p1, meta, "managed_by", [
    { type: "discount", rate: "0.1", scope: "all" },
    { type: "surcharge", rate: "0.02", scope: "platform_a.volume" },
  ]);
  await relate(p2, acme, "managed_by", [{ type: "kickback", rate: "0.05", scope: "all" }]);
  await relate(cm, acme, "managed_by", [{ type: "kickback", rate: "0.1", scope: "platform_a" }]);
  await relate(cm, t1, "infrastructure_tenant");
}

beforeAll(async () => {
  [stack, completeDb] = await Promise.all([engineTestStack(), freshDatabase()]);
  await migrateEngine(completeDb.url);
  complete = openEngineDatabase(completeDb.url);
  dir = mkdtempSync(join(tmpdir(), "svc-engine-correct-"));
  await registry();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await complete.close();
  await completeDb.drop();
  await stack.dispose();
});

const deps = () => ({ engine: stack.engine, reporting: stack.reporting, counters: null });
const stored = (result: CorrectionResult) => {
  if (result.kind !== "stored") throw new Error("expected a stored correction");
  return result;
};
const runsOf = async () =>
  (await stack.engine.sql<{ n: number }[]>`select count(*)::int as n from runs`)[0]?.n;
const totals = async (db: EngineDatabase, runId: string) =>
  Object.fromEntries(
    (
      await db.sql<{ key: string; total: string }[]>`
        select cloud || '/' || project_id as key, total::text from statements where run_id = ${runId}`
    ).map((r) => [r.key, r.total]),
  );

describe("a month corrected for its late events", () => {
  let finalizedId = "";
  let correctionId = "";
  let completeId = "";

  test("a period that is not finalized is not corrected", async () => {
    await expect(correctPeriod(deps(), period)).rejects.toThrow(
      "the billing period is not finalized: 2026-10 has no finalized run to correct; run it with run --period 2026-10 and close it with finalize --period 2026-10",
    );
  });

  test("the month is run and finalized without its late share", async () => {
    await insertEvents([
      ["i1-c", "2026-09-20T00:00:00Z", "compute.instance.create.end", "i1", "p1", active],
      ["i2-x", "2026-10-10T00:00:00Z", "compute.instance.exists", "i2", "p2", active],
      ["i3-c", "2026-09-01T00:00:00Z", "compute.instance.create.end", "i3", "t1", active],
      ["i4-c", "2026-09-01T00:00:00Z", "compute.instance.create.end", "i4", "p3", active],
      ["i5-c", "2026-09-01T00:00:00Z", "compute.instance.create.end", "i5", "p2", active],
    ]);
    const run = await runPeriod({ ...deps(), statements: walk }, period, model, after);
    finalizedId = run.runId;
    await finalizePeriod(stack.engine.sql, period, finalizedId);
  });

  test("the late share arrives; detect-late lists what it touches inside the month", async () => {
    await insertEvents([
      // a held delete, a held create, a held power-off of an attributed tenant's instance
      ["i1-d", "2026-10-11T00:00:00Z", "compute.instance.delete.end", "i1", "p1", {}],
      ["i2-c", "2026-10-05T00:00:00Z", "compute.instance.create.end", "i2", "p2", active],
      ["i3-o", "2026-10-15T00:00:00Z", "compute.instance.power_off.end", "i3", "t1", { state: "shutoff" }],
      // a volume whose create and delete both came late
      [
        "v1-c",
        "2026-10-03T00:00:00Z",
        "volume.create.end",
        "v1",
        "p1",
        { state: "available", size: { size_gb: 100 } },
      ],
      ["v1-d", "2026-10-20T00:00:00Z", "volume.delete.end", "v1", "p1", {}],
      // dated before the month: not late, yet the month no longer bills i4
      ["i4-d", "2026-09-25T00:00:00Z", "compute.instance.delete.end", "i4", "p3", {}],
    ]);
    const lines = lateLines(await detectLate(stack.engine.sql, stack.reporting, period));
    expect(lines[0]).toMatch(new RegExp(`^run ${finalizedId} read 2026-10 at \\S+Z$`));
    expect(lines.slice(1).map((l) => l.replace(/, last received .*$/, ""))).toEqual([
      "c1/platform_a/instance/i1: 1 late events",
      "c1/platform_a/instance/i2: 1 late events",
      "c1/platform_a/instance/i3: 1 late events",
      "c1/platform_a/volume/v1: 2 late events",
      "book them with correct --period 2026-10",
    ]);
  });

  test("correct stores credit notes whose totals bring the finalized month to a run over the complete month", async () => {
    const result = stored(await correctPeriod(deps(), period));
    correctionId = result.runId;
    expect(correctionReport(result, period)).toEqual([
      `run ${correctionId} completed as a correction of run ${finalizedId} for 2026-10 with pricing model svc-default-2026`,
      // i4 is gone from the month (its delete is dated before it): 5 candidates, no unregistered p3.
      "metered 5 candidates into 6 usage records and 13 rated records",
      "12 deltas and 4 adjustment deltas in 4 credit notes",
      "warnings recorded in runs.stats: metering=0 counter=4 attribution=0 adjustment=0 unpriced_resource_types=0 unreadable_fields=0 unregistered_projects=0 (counter_source_missing=4)",
    ]);
    completeId = await completeRun();
    const before = await totals(stack.engine, finalizedId);
    const target = await totals(complete, completeId);
    const notes = await stack.engine.sql<{ key: string; total: string }[]>`
      select cloud || '/' || project_id as key, total::text from credit_notes where run_id = ${correctionId}`;
    // Finalized plus the note, per project, to the cent; a project no longer billed stands at 0.00.
    const corrected = new Map(Object.entries(before).map(([k, v]) => [k, decimal(v)]));
    for (const n of notes) corrected.set(n.key, (corrected.get(n.key) ?? zero).plus(decimal(n.total)));
    for (const key of new Set([...corrected.keys(), ...Object.keys(target)])) {
      expect([key, formatMoney(corrected.get(key) ?? zero)]).toEqual([key, target[key] ?? "0.00"]);
    }
    // The lines that stand after the correction are the complete month's, line for line.
    await exportRun(stack.engine.sql, correctionId, "csv", join(dir, "corrected"));
    await exportRun(complete.sql, completeId, "csv", join(dir, "complete"));
    expect(readFileSync(join(dir, "corrected", "rated.csv"), "utf8")).toBe(
      readFileSync(join(dir, "complete", "rated.csv"), "utf8"),
    );
  });

  test("the credit notes: every member in order, tenants on the cluster manager's note only", async () => {
    const lines = exportLines(await exportRun(stack.engine.sql, correctionId, "json", join(dir, "json")));
    expect(lines).toEqual([
      `run ${correctionId} exported for 2026-10 as json into ${join(dir, "json")}`,
      "wrote run.json and 4 credit notes",
      "wrote kickbacks.json with 1 kickback deltas",
    ]);
    expect(readdirSync(join(dir, "json")).sort()).toEqual([
      "credit-note-c1%2Fcm.json",
      "credit-note-c1%2Fp1.json",
      "credit-note-c1%2Fp2.json",
      "credit-note-c1%2Fp3.json",
      "kickbacks.json",
      "run.json",
    ]);
    const note = (key: string) =>
      JSON.parse(readFileSync(join(dir, "json", `credit-note-${key}.json`), "utf8"));
    const p1 = note("c1%2Fp1");
    expect(Object.keys(p1)).toEqual([
      "project_id",
      "corrects_run_id",
      "line_items",
      "base_delta",
      "adjustments",
      "net_delta",
      "kickback_delta",
      "related_costs",
      "total",
      "cloud",
      "currency",
    ]);
    // i1 billed 744 h, lived 240 h: 504 h of 2 vcpus, 4 GiB, 40 GiB credited. v1 lived 408 h at 100 GiB.
    // The surcharge is 2 % of the volumes (0.09); the discount 10 % of the net after it: 15.95 → -1.60.
    expect(p1).toEqual({
      project_id: "p1",
      corrects_run_id: finalizedId,
      line_items: [
        {
          resource_type: "instance",
          resource_id: "i1",
          platform: "platform_a",
          dimensions: {
            disk_gb: { old: "4.17", new: "1.34", delta: "-2.83" },
            ram_gb: { old: "12.50", new: "4.03", delta: "-8.47" },
            vcpus: { old: "18.60", new: "6.00", delta: "-12.60" },
          },
          total: "-23.90",
        },
        {
          resource_type: "volume",
          resource_id: "v1",
          platform: "platform_a",
          dimensions: { size_gb: { old: "0.00", new: "4.49", delta: "4.49" } },
          total: "4.49",
        },
      ],
      base_delta: "-19.41",
      adjustments: [
        {
          type: "surcharge",
          relation_type: "managed_by",
          relation_target: "reseller",
          relation_id: expect.any(String),
          scope: "platform_a.volume",
          rate: "0.020000",
          old: "0.00",
          new: "0.09",
          delta: "0.09",
        },
        {
          type: "discount",
          relation_type: "managed_by",
          relation_target: "reseller",
          relation_id: expect.any(String),
          scope: "all",
          rate: "0.100000",
          old: "-3.53",
          new: "-1.60",
          delta: "1.93",
        },
      ],
      net_delta: "-17.39",
      kickback_delta: "0.00",
      related_costs: [],
      total: "-17.39",
      cloud: "c1",
      currency: "EUR",
    });
    const cm = note("c1%2Fcm");
    expect(cm.line_items).toEqual([]);
    expect(
      cm.related_costs.map((r: { relation_type: string; project_id: string }) => [
        r.relation_type,
        r.project_id,
      ]),
    ).toEqual([["infrastructure_tenant", "t1"]]);
    expect(cm.total).toBe(cm.related_costs[0].total);
    const kickbacks = JSON.parse(readFileSync(join(dir, "json", "kickbacks.json"), "utf8"));
    const report = await kickbackReport(stack.engine.sql, await requireRun(stack.engine.sql, correctionId));
    expect(kickbacks).toEqual(report);
    expect(report.kind).toBe("correction");
    expect(report.corrects_run_id).toBe(finalizedId);
  });

  test("the kickback deltas are what the partner is owed more or less than its settlement", async () => {
    const settlement = async (db: EngineDatabase, runId: string) =>
      (
        await db.sql<
          { t: string }[]
        >`select kickback_total::text as t from partner_settlements where run_id = ${runId}`
      )[0]?.t;
    const report = await kickbackReport(stack.engine.sql, await requireRun(stack.engine.sql, correctionId));
    const owed =
      Math.round(Number(await settlement(complete, completeId)) * 100) -
      Math.round(Number(await settlement(stack.engine, finalizedId)) * 100);
    expect(
      report.beneficiaries.map((b) => [b.beneficiary, Math.round(Number(b.kickback_total) * 100)]),
    ).toEqual([["acme", owed]]);
    expect(owed).toBeLessThan(0);
  });

  test("a correction superseded by a finalized one is not finalized; correcting again finds no deltas", async () => {
    const second = stored(await correctPeriod(deps(), period));
    expect([finalizedLine(await finalizePeriod(stack.engine.sql, period, correctionId))]).toEqual([
      `correction run ${correctionId} finalized for 2026-10`,
    ]);
    await expect(finalizePeriod(stack.engine.sql, period, second.runId)).rejects.toThrow(
      `correction run ${second.runId} corrects run ${finalizedId}, but the numbers of 2026-10 now stand on run ${correctionId}: correct again with correct --period 2026-10`,
    );
    await expect(finalizePeriod(stack.engine.sql, period, correctionId)).rejects.toThrow(
      `correction run ${correctionId} is already finalized`,
    );
    const runs = await runsOf();
    expect(correctionReport(await correctPeriod(deps(), period), period)).toEqual([
      "no deltas: the finalized numbers of 2026-10 stand",
    ]);
    expect(await runsOf()).toBe(runs);
    const late = lateLines(await detectLate(stack.engine.sql, stack.reporting, period));
    expect(late[0]).toMatch(new RegExp(`^run ${correctionId} read 2026-10 at `));
    expect(late.slice(1)).toEqual(["no events arrived later"]);
  });

  test("later late events are corrected against the finalized correction", async () => {
    await insertEvents([
      ["i5-o", "2026-10-31T00:00:00Z", "compute.instance.power_off.end", "i5", "p2", { state: "shutoff" }],
    ]);
    const third = stored(await correctPeriod(deps(), period));
    expect(third.correctsRunId).toBe(correctionId);
    expect(correctionReport(third, period)[2]).toBe("2 deltas and 1 adjustment deltas in 1 credit notes");
    await finalizePeriod(stack.engine.sql, period, third.runId);
    await exportRun(complete.sql, await completeRun(), "csv", join(dir, "complete-2"));
    await exportRun(stack.engine.sql, third.runId, "csv", join(dir, "corrected-2"));
    expect(readFileSync(join(dir, "corrected-2", "rated.csv"), "utf8")).toBe(
      readFileSync(join(dir, "complete-2", "rated.csv"), "utf8"),
    );
  });

  test("a standing statement changed behind the engine's back stops the correction: the run fails, nothing else stays (decision 468)", async () => {
    await insertEvents([
      ["i5-n", "2026-10-31T12:00:00Z", "compute.instance.power_on.end", "i5", "p2", active],
    ]);
    // The finalized guard refuses any change to a finalized run's rows; a broken disk or a hand in
    // the database does not ask it.
    const tamper = (by: string) =>
      stack.engine.sql.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`update statements set total = total + ${by}::numeric where cloud = 'c1' and project_id = 'p2'`;
      });
    await tamper("0.01");
    const runs = await runsOf();
    const refused = correctPeriod(deps(), period);
    await expect(refused).rejects.toBeInstanceOf(MoneyInvariantError);
    await expect(refused).rejects.toMatchObject({ invariant: "note_total_is_net" });
    const [failed] = await stack.engine.sql<{ id: string; status: string; error: string }[]>`
      select id::text, status, error from runs order by id desc limit 1`;
    const left = await stack.engine.sql<{ deltas: number; notes: number }[]>`select
      (select count(*)::int from line_deltas where run_id = ${failed?.id ?? ""}) as deltas,
      (select count(*)::int from credit_notes where run_id = ${failed?.id ?? ""}) as notes`;
    expect([await runsOf(), failed?.status, failed?.error.split(":")[0], left[0]]).toEqual([
      (runs ?? 0) + 1,
      "failed",
      "money invariant note_total_is_net broken on the credit note of c1/p2",
      { deltas: 0, notes: 0 },
    ]);
    await tamper("-0.01");
    // Put back, the figures add up again and the same correction is stored.
    const standing = (await finalizedChain(stack.engine.sql, period.name)).at(-1);
    expect(stored(await correctPeriod(deps(), period)).correctsRunId).toBe(standing?.id ?? "");
  });
});
