import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { type EngineTestStack, engineTestStack } from "../../../harness/engine/engine-test-stack.ts";
import { registerTenants } from "../../../harness/engine/register-tenants.ts";
import { ingestThroughApi, simulateMonth } from "../../../harness/engine/simulated-month.ts";
import { type FreshDatabase, freshDatabase } from "../../../harness/reporting/fresh-database.ts";
import { services } from "../../../harness/test-services.ts";
import { loadSeries } from "../../../harness/traffic/load-series.ts";
import { decimal, formatMoney, zero } from "../../foundation/money/decimal.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { compareFiles } from "../compare/compare-files.ts";
import type { CanonicalEvent } from "../events/event.ts";
import { readCounterSources } from "../metering/counter-sources.ts";
import { victoriaMetricsCounterStore } from "../metering/counter-store.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { trafficImportSeries } from "../traffic/traffic-import.ts";
import { correctPeriod } from "./correct-period.ts";
import { detectLate, lateLines } from "./detect-late.ts";
import { type EngineDatabase, migrateEngine, openEngineDatabase } from "./engine-database.ts";
import { exportRun } from "./export-run.ts";
import { finalizePeriod } from "./finalize-period.ts";
import { runPeriod } from "./run-period.ts";

// Whole months are generated, ingested, run, corrected and run again here.
setDefaultTimeout(180_000);

const pricingPath = new URL("../../../pricing/default.yaml", import.meta.url).pathname;
const model = readPricingModel(readFileSync(pricingPath, "utf8"));
const sources = readCounterSources(
  readFileSync(new URL("../../../pricing/counter-sources.yaml", import.meta.url), "utf8"),
);
const walk = { relationTypes: ["managed_by", "member_of"], depth: 3 };
const now = new Date("2026-12-05T00:00:00Z");

let stack: EngineTestStack;
let completeDb: FreshDatabase;
/** Where runs over the complete month are made: what every correction must bring the month to. */
let complete: EngineDatabase;
let vmUrl: string;
let ingest: ReturnType<typeof ingestThroughApi>;
let dir: string;

beforeAll(async () => {
  [stack, completeDb, vmUrl] = await Promise.all([
    engineTestStack(),
    freshDatabase(),
    services.victoriaMetrics().then((vm) => vm.url),
  ]);
  await migrateEngine(completeDb.url);
  complete = openEngineDatabase(completeDb.url);
  ingest = ingestThroughApi(stack.reportingDb);
  dir = mkdtempSync(join(tmpdir(), "svc-correction-acceptance-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await complete.close();
  await completeDb.drop();
  await stack.dispose();
});

const totals = async (db: EngineDatabase, runId: string) =>
  new Map(
    (
      await db.sql<{ key: string; total: string }[]>`
        select cloud || '/' || project_id as key, total::text from statements where run_id = ${runId}`
    ).map((r) => [r.key, decimal(r.total)]),
  );

const cases: [seed: number, period: string][] = [
  [1, "2026-07"],
  [2, "2026-08"],
  [3, "2026-09"],
];

describe("the simulator's held-back month: run and finalized without the held share, then corrected", () => {
  for (const [seed, name] of cases) {
    test(`seed ${seed} (${name})`, async () => {
      const period = parsePeriod(name);
      await stack.reportingDb.reset();
      const cloud = `held-${seed}`;
      const monthDir = join(dir, String(seed));
      const month = await simulateMonth({
        dir: monthDir,
        seed,
        faults: ["held-back"],
        cloud,
        period: name,
        tenants: 3,
      });
      await registerTenants(stack.reportingDb.sql, {
        cloud,
        garden: `garden-${seed}`,
        tenants: month.tenants,
        from: period.from,
      });
      const split = month.eventLines.length - month.heldEvents;
      expect(month.heldEvents).toBeGreaterThan(0);
      await ingest(month.eventLines.slice(0, split));
      await loadSeries(vmUrl, trafficImportSeries(cloud, month.oracle.traffic));
      const counters = { sources, store: victoriaMetricsCounterStore(vmUrl) };
      const regular = await runPeriod(
        { engine: stack.engine, reporting: stack.reporting, counters, statements: walk },
        period,
        model,
        now,
      );
      await finalizePeriod(stack.engine.sql, period, regular.runId);

      // The held share arrives: detect-late lists exactly the resources it touches inside the month.
      const held = month.eventLines.slice(split);
      await ingest(held);
      const touched = new Set(
        held
          .map((l) => JSON.parse(l) as CanonicalEvent)
          .filter((e) => e.timestamp >= period.from && e.timestamp < period.to)
          .map((e) => `${e.cloud}/${e.platform}/${e.resource_type}/${e.resource_id}`),
      );
      const late = lateLines(await detectLate(stack.engine.sql, stack.reporting, period));
      expect(
        late
          .slice(1, -1)
          .map((l) => l.slice(0, l.indexOf(":")))
          .sort(),
      ).toEqual([...touched].sort());

      const correction = await correctPeriod(
        { engine: stack.engine, reporting: stack.reporting, counters },
        period,
      );
      if (correction.kind !== "stored") throw new Error("the held share moved nothing");
      expect(correction.computed.stats.warnings.metering).toBe(0);
      expect(correction.computed.stats.warnings.counter).toBe(0);

      // Finalized plus the credit notes is a run over the complete month, per project, to the cent.
      const fresh = await runPeriod(
        { engine: complete, reporting: stack.reporting, counters, statements: walk },
        period,
        model,
        now,
      );
      const corrected = await totals(stack.engine, regular.runId);
      for (const note of correction.computed.notes) {
        const key = `${note.cloud}/${note.project_id}`;
        corrected.set(key, (corrected.get(key) ?? zero).plus(note.total));
      }
      const target = await totals(complete, fresh.runId);
      const shown = (m: Map<string, ReturnType<typeof decimal>>, keys: Set<string>) =>
        [...keys].sort().map((k) => [k, formatMoney(m.get(k) ?? zero)]);
      const keys = new Set([...corrected.keys(), ...target.keys()]);
      expect(shown(corrected, keys)).toEqual(shown(target, keys));
      // Attribution and adjustments were in play: a cluster manager's note carries its tenant.
      expect(correction.computed.notes.some((n) => n.related.length > 0 && n.adjustments.length > 0)).toBe(
        true,
      );

      // The corrected month's lines are the complete month's, and the oracle's, but that a line whose
      // amount did not move keeps its finalized quantity: a correction stores only non-zero deltas
      // (decision 426).
      const correctedDir = join(monthDir, "corrected");
      const finalizedDir = join(monthDir, "finalized");
      await exportRun(stack.engine.sql, correction.runId, "csv", correctedDir);
      await exportRun(stack.engine.sql, regular.runId, "csv", finalizedDir);
      await exportRun(complete.sql, fresh.runId, "csv", join(monthDir, "complete"));
      const rows = (dir: string) =>
        new Map(
          readFileSync(join(dir, "rated.csv"), "utf8")
            .trim()
            .split("\n")
            .slice(1)
            .map((l) => l.split(","))
            .map((f) => [f.slice(0, 6).join(","), { quantity: f[6], amount: f[8] }]),
        );
      const [standing, whole, before] = [
        rows(correctedDir),
        rows(join(monthDir, "complete")),
        rows(finalizedDir),
      ];
      expect([...standing.keys()]).toEqual([...whole.keys()]);
      for (const [key, line] of standing) {
        const expected = whole.get(key);
        expect([key, line.amount]).toEqual([key, expected?.amount]);
        if (line.quantity !== expected?.quantity)
          expect([key, line.quantity, line.amount]).toEqual([
            key,
            before.get(key)?.quantity,
            before.get(key)?.amount,
          ]);
      }
      const comparison = await compareFiles({
        exportDir: correctedDir,
        oracle: join(monthDir, "oracle.json"),
        pricing: pricingPath,
        corrects: finalizedDir,
      });
      expect(comparison.differences).toEqual([]);

      // Finalized, the correction stands: correcting again finds nothing.
      await finalizePeriod(stack.engine.sql, period, correction.runId);
      expect(
        (await correctPeriod({ engine: stack.engine, reporting: stack.reporting, counters }, period)).kind,
      ).toBe("no-deltas");
    });
  }
});

describe("property: random late subsets of a simulated month", () => {
  test("finalized totals plus the correction's note totals equal a run over the complete month, per project, to the cent", async () => {
    const period = parsePeriod("2026-06");
    const cloud = "late-subsets";
    const month = await simulateMonth({
      dir: join(dir, "subsets"),
      seed: 11,
      faults: [],
      cloud,
      period: period.name,
      tenants: 2,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0.02, 0.1, 0.4),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        async (share, draws) => {
          await stack.reportingDb.reset();
          await registerTenants(stack.reportingDb.sql, {
            cloud,
            garden: "garden-subsets",
            tenants: month.tenants,
            from: period.from,
          });
          const onTime: string[] = [];
          const late: string[] = [];
          for (const line of month.eventLines) (draws.next().value < share ? late : onTime).push(line);
          // Each case closes the month in a database of its own; a second one runs the complete month.
          const [closedDb, completeDb] = await Promise.all([freshDatabase(), freshDatabase()]);
          const [closed, whole] = [openEngineDatabase(closedDb.url), openEngineDatabase(completeDb.url)];
          try {
            await Promise.all([migrateEngine(closedDb.url), migrateEngine(completeDb.url)]);
            await ingest(onTime);
            const regular = await runPeriod(
              { engine: closed, reporting: stack.reporting, counters: null, statements: walk },
              period,
              model,
              now,
            );
            await finalizePeriod(closed.sql, period, regular.runId);
            await ingest(late);
            const correction = await correctPeriod(
              { engine: closed, reporting: stack.reporting, counters: null },
              period,
            );
            const fresh = await runPeriod(
              { engine: whole, reporting: stack.reporting, counters: null, statements: walk },
              period,
              model,
              now,
            );
            const corrected = await totals(closed, regular.runId);
            const notes = correction.kind === "stored" ? correction.computed.notes : [];
            for (const note of notes) {
              const key = `${note.cloud}/${note.project_id}`;
              corrected.set(key, (corrected.get(key) ?? zero).plus(note.total));
            }
            const target = await totals(whole, fresh.runId);
            for (const key of new Set([...corrected.keys(), ...target.keys()])) {
              expect([key, formatMoney(corrected.get(key) ?? zero)]).toEqual([
                key,
                formatMoney(target.get(key) ?? zero),
              ]);
            }
          } finally {
            await Promise.all([closed.close(), whole.close()]);
            await Promise.all([closedDb.drop(), completeDb.drop()]);
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
