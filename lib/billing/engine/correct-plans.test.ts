import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  lateMonthModel,
  lateMonthPipelines,
  monthArb,
  type RegistryData,
  registryWith,
  type Shape,
} from "../../../harness/engine/late-month.ts";
import { byProject, expectNotesAddUp } from "../../../harness/engine/note-figures.ts";
import { sum } from "../../foundation/money/decimal.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import type { Statement } from "../statements/build-statements.ts";
import { projectKey } from "../statements/registry.ts";

// Corrections under plans and a price change (issue 34, item 5): a late event that moves a statement
// across a tier boundary, across the change or above or below its minimum gives a note equal to the
// difference, to the cent, figure by figure. The bounds are low enough that the random months of
// `late-month.ts` cross them often; the last test counts that they did.
const period = parsePeriod("2026-10");
const model = lateMonthModel(
  "corrections-plans-test",
  `changes:
  - from: "2026-10-16T07:30:00Z"
    platforms:
      platform_a:
        instance: { prices: { vcpus: "0.0135" } }
        volume: { prices: { size_gb: "0.00009" } }
plans:
  graduated:
    projects: { c1: [p1], g1: [cm] }
    tiered:
      - dimension: platform_a.instance.vcpus
        mode: graduated
        tiers: [{ up_to: "300", price: "0.0125" }, { up_to: "1500", price: "0.0100" }, { price: "0.0080" }]
      - dimension: platform_a.volume.size_gb
        mode: graduated
        tiers: [{ up_to: "100000", price: "0.00011" }, { price: "0.00005" }]
    minimums:
      - { scope: platform_a.instance, amount: "25.00" }
  volume:
    projects: { c1: [p2] }
    tiered:
      - dimension: platform_a.instance.ram_gb
        mode: volume
        tiers: [{ up_to: "1000", price: "0.0042" }, { up_to: "6000", price: "0.0035" }, { price: "0.0030" }]
  committed:
    projects: { c1: [p3, px, idle] }
    minimums:
      - { scope: platform_a, amount: "30.00" }
      - { scope: platform_a.volume, amount: "10.00" }
`,
);
const pipelines = lateMonthPipelines({
  period,
  model,
  statements: { relationTypes: ["managed_by", "member_of"], depth: 3 },
});

/** The registry of the correction tests, and `idle`: a committed project that never uses anything. */
function registryOf(spec: Shape<typeof monthArb>): RegistryData {
  const registry = registryWith(spec.rates);
  return {
    ...registry,
    projects: [...registry.projects, { id: "IDLE", platform: "platform_a", cloud: "c1", externalId: "idle" }],
  };
}

const month = (spec: Shape<typeof monthArb>) => pipelines.month(spec, registryOf(spec));

describe("a correction under plans and a price change, over random late subsets", () => {
  test("the finalized figures plus the note's deltas are the complete month's, figure by figure, to the cent", async () => {
    await expectNotesAddUp(month, 200);
  });

  test("a note's base delta is its line deltas and its plan lines' deltas; correcting again finds nothing", async () => {
    await fc.assert(
      fc.asyncProperty(monthArb, async (spec) => {
        const { resources, registry, finalized, complete, notes } = await month(spec);
        for (const note of notes) {
          const plan = [...(note.plan?.tier_lines ?? []), ...(note.plan?.minimums ?? [])];
          expect(note.base_delta.toFixed()).toBe(
            sum([...note.lines.map((l) => l.delta), ...plan.map((p) => p.delta)]).toFixed(),
          );
          for (const p of plan)
            expect([p.delta.eq(0), p.delta.eq(p.new.minus(p.old))]).toEqual([false, true]);
        }
        const again = await pipelines.correct(resources, registry, {
          rated: complete.rated,
          statements: finalized.statements,
          restated: notes.map((n) => n.corrected),
        });
        expect(again.notes).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  test("the months cross tier boundaries, the price change and minimums both ways, late", async () => {
    const met = { tierBandMoved: 0, topUpAppeared: 0, topUpWent: 0, idleBilled: 0, splitAtChange: 0 };
    const tierBands = (s: Statement | undefined) =>
      (s?.plan?.tier_lines ?? []).map((t) => `${t.dimension}:${t.tiers.length}:${t.tiers.at(-1)?.up_to}`);
    const topped = (s: Statement | undefined) =>
      new Set((s?.plan?.minimums ?? []).filter((m) => m.amount.gt(0)).map((m) => m.scope));
    await fc.assert(
      fc.asyncProperty(monthArb, async (spec) => {
        const { finalized, complete } = await month(spec);
        const before = byProject(finalized.statements);
        for (const s of complete.statements) {
          const old = before.get(projectKey(s.cloud, s.project_id));
          if (tierBands(old).join() !== tierBands(s).join()) met.tierBandMoved += 1;
          const [was, is] = [topped(old), topped(s)];
          if ([...is].some((x) => !was.has(x))) met.topUpAppeared += 1;
          if ([...was].some((x) => !is.has(x))) met.topUpWent += 1;
          if (s.project_id === "idle" && s.total.gt(0)) met.idleBilled += 1;
        }
        for (const { rating } of complete.rated)
          if (rating.lines.some((l) => !l.priced.eq(l.numerator.times(l.unit_price)))) met.splitAtChange += 1;
      }),
      { numRuns: 100, seed: 34 },
    );
    for (const [what, n] of Object.entries(met)) expect([what, n > 0]).toEqual([what, true]);
  });
});
