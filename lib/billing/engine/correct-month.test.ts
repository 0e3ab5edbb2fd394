import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  type LateEvent,
  lateMonthModel,
  lateMonthPipelines,
  monthArb,
  type Resource,
  registryWith,
} from "../../../harness/engine/late-month.ts";
import { expectNotesAddUp } from "../../../harness/engine/note-figures.ts";
import { decimal, formatMoney, sum } from "../../foundation/money/decimal.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import type { CreditNote } from "../corrections/credit-note.ts";
import { MoneyInvariantError } from "../statements/money-invariants.ts";

// The pure pipelines of a run and of a correction, run with no database at all: the month's rows, the
// registry and what stands are plain data (decision 451).
const period = parsePeriod("2026-10");
const model = lateMonthModel("corrections-test");
const options = { relationTypes: ["managed_by", "member_of"], depth: 3 };
const { meter, correct, month } = lateMonthPipelines({ period, model, statements: options });

const kinds = (note: CreditNote, kickback: boolean) =>
  sum(note.adjustments.filter((a) => (a.type === "kickback") === kickback).map((a) => a.delta));

describe("a correction of random late subsets of a month", () => {
  test("each finalized figure plus the credit note's delta is the complete month's, per project, to the cent", async () => {
    await expectNotesAddUp(month, 300);
  });

  test("each note's members relate as the spec says", async () => {
    await fc.assert(
      fc.asyncProperty(monthArb, async (spec) => {
        const { notes } = await month(spec);
        for (const note of notes) {
          const own = note.lines.filter((l) => l.project_id === note.project_id && l.cloud === note.cloud);
          const tenants = note.lines.filter((l) => !own.includes(l));
          expect(note.base_delta.toFixed()).toBe(sum(note.lines.map((l) => l.delta)).toFixed());
          expect(note.net_delta.toFixed()).toBe(note.base_delta.plus(kinds(note, false)).toFixed());
          expect(note.kickback_delta.toFixed()).toBe(kinds(note, true).toFixed());
          expect(note.total.toFixed()).toBe(note.net_delta.toFixed());
          expect(sum(note.related.map((r) => r.total)).toFixed()).toBe(
            sum(tenants.map((l) => l.delta)).toFixed(),
          );
          for (const a of note.adjustments) expect(a.delta.toFixed()).toBe(a.new.minus(a.old).toFixed());
          for (const l of note.lines) expect(l.delta.eq(0)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("an attributed tenant's deltas are on its cluster manager's note only", async () => {
    await fc.assert(
      fc.asyncProperty(monthArb, async (spec) => {
        const { notes } = await month(spec);
        expect(notes.some((n) => n.project_id === "t1")).toBe(false);
        for (const note of notes) {
          for (const l of note.lines.filter((x) => x.project_id === "t1")) {
            expect([note.cloud, note.project_id, l.note_project_id]).toEqual(["g1", "cm", "cm"]);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  test("once the correction stands, correcting again finds nothing", async () => {
    await fc.assert(
      fc.asyncProperty(monthArb, async (spec) => {
        const { resources, registry, finalized, complete, notes } = await month(spec);
        // What stands once the correction is finalized: the complete month's lines (the store's
        // overlay of the deltas: lib/billing/engine/correct-period.test.ts), the finalized statements
        // and each note's restated one over them.
        const again = await correct(resources, registry, {
          rated: complete.rated,
          statements: finalized.statements,
          restated: notes.map((n) => n.corrected),
        });
        expect(again.notes).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

/** A hand-written history: each event [timestamp, kind, project, payload, late]. */
function history(
  type: "instance" | "volume",
  id: string,
  events: [string, string, string, Record<string, unknown>, boolean][],
): Resource {
  const prefix = type === "instance" ? "compute.instance" : "volume";
  return {
    key: { cloud: "c1", platform: "platform_a", resource_type: type, resource_id: id },
    events: events.map(([timestamp, kind, project_id, payload, late], n) => ({
      event_id: `${id}-${n}`,
      timestamp,
      event_type: `${prefix}.${kind}.end`,
      project_id,
      payload: payload as LateEvent["payload"],
      late,
    })),
  };
}
const small = { state: "active", size: { vcpus: 1, ram_gb: 2, disk_gb: 20 } };
const rates = { discount: "0.1", surcharge: "0.02", kickback: "0.05", project: "0.07" };

async function corrected(resources: Resource[]) {
  const registry = registryWith(rates);
  return (await correct(resources, registry, await meter(resources, registry, (e) => !e.late))).notes;
}

/** A note in plain text: its own lines per dimension as [old, new, delta], and its sums. */
const shown = (note: CreditNote) => ({
  note: `${note.cloud}/${note.project_id}`,
  lines: note.lines.map((l) => [
    `${l.project_id}/${l.resource_id}/${l.dimension}`,
    formatMoney(l.old_amount),
    formatMoney(l.new_amount),
    formatMoney(l.delta),
  ]),
  adjustments: note.adjustments.map((a) => [
    a.type,
    formatMoney(a.old),
    formatMoney(a.new),
    formatMoney(a.delta),
  ]),
  related: note.related.map((r) => [r.relation_type, r.project_id, formatMoney(r.total)]),
  base: formatMoney(note.base_delta),
  net: formatMoney(note.net_delta),
  kickback: formatMoney(note.kickback_delta),
  total: formatMoney(note.total),
});

describe("examples (docs/engine.md#correction-rules, rules 2 to 5)", () => {
  test("a held delete credits the hours after the delete", async () => {
    const notes = await corrected([
      history("instance", "i1", [
        ["2026-09-20T00:00:00.000Z", "create", "px", small, false],
        ["2026-10-11T00:00:00.000Z", "delete", "px", {}, true],
      ]),
    ]);
    // 744 h billed, 240 h lived in the month: 504 h of 1 vcpu, 2 GiB and 20 GiB credited.
    expect(notes.map(shown)).toEqual([
      {
        note: "c1/px",
        lines: [
          ["px/i1/disk_gb", "2.08", "0.67", "-1.41"],
          ["px/i1/ram_gb", "6.25", "2.02", "-4.23"],
          ["px/i1/vcpus", "9.30", "3.00", "-6.30"],
        ],
        adjustments: [],
        related: [],
        base: "-11.94",
        net: "-11.94",
        kickback: "0.00",
        total: "-11.94",
      },
    ]);
  });

  test("a held create debits the hours the resource lived before its first event", async () => {
    const notes = await corrected([
      history("volume", "v1", [
        ["2026-10-05T00:00:00.000Z", "create", "px", { state: "available", size: { size_gb: 500 } }, true],
        ["2026-10-10T00:00:00.000Z", "exists", "px", { state: "available", size: { size_gb: 500 } }, false],
      ]),
    ]);
    // Billed from 10-10 (528 h), lived from 10-05 (648 h): 120 h of 500 GiB at 0.00011.
    expect(notes.map(shown)[0]?.lines).toEqual([["px/v1/size_gb", "29.04", "35.64", "6.60"]]);
  });

  test("a resource whose create and delete both came late is billed by the correction alone", async () => {
    const notes = await corrected([
      history("instance", "i2", [
        ["2026-10-03T00:00:00.000Z", "create", "px", small, true],
        ["2026-10-04T00:00:00.000Z", "delete", "px", {}, true],
      ]),
    ]);
    expect(notes.map(shown)[0]).toMatchObject({
      lines: [
        ["px/i2/disk_gb", "0.00", "0.07", "0.07"],
        ["px/i2/ram_gb", "0.00", "0.20", "0.20"],
        ["px/i2/vcpus", "0.00", "0.30", "0.30"],
      ],
      total: "0.57",
    });
  });

  test("adjustment deltas: the rate applied to the corrected base (discount) or net (kickback)", async () => {
    const notes = await corrected([
      history("instance", "i3", [
        ["2026-09-20T00:00:00.000Z", "create", "p2", small, false],
        ["2026-10-11T00:00:00.000Z", "delete", "p2", {}, true],
      ]),
    ]);
    // Base 17.63 → 5.69; discount 10 % of the instance bucket: -1.76 → -0.57; kickback 5 % of the
    // net: 15.87 × 0.05 = 0.79 → 5.12 × 0.05 = 0.26.
    expect(notes.map(shown)[0]).toMatchObject({
      note: "c1/p2",
      adjustments: [
        ["discount", "-1.76", "-0.57", "1.19"],
        ["kickback", "0.79", "0.26", "-0.53"],
      ],
      base: "-11.94",
      net: "-10.75",
      kickback: "-0.53",
      total: "-10.75",
    });
  });

  test("an attributed tenant's deltas appear under related_costs on the cluster manager's note only", async () => {
    const notes = await corrected([
      history("instance", "i4", [
        ["2026-09-20T00:00:00.000Z", "create", "t1", small, false],
        ["2026-10-11T00:00:00.000Z", "delete", "t1", {}, true],
      ]),
    ]);
    expect(notes.map(shown)).toEqual([
      {
        note: "g1/cm",
        lines: [
          ["t1/i4/disk_gb", "2.08", "0.67", "-1.41"],
          ["t1/i4/ram_gb", "6.25", "2.02", "-4.23"],
          ["t1/i4/vcpus", "9.30", "3.00", "-6.30"],
        ],
        adjustments: [["kickback", "0.88", "0.28", "-0.60"]],
        related: [["infrastructure_tenant", "t1", "-11.94"]],
        base: "-11.94",
        net: "-11.94",
        kickback: "-0.60",
        total: "-11.94",
      },
    ]);
  });

  test("nothing late, nothing noted", async () => {
    expect(
      await corrected([
        history("instance", "i5", [["2026-10-02T00:00:00.000Z", "create", "p1", small, false]]),
      ]),
    ).toEqual([]);
  });
});

describe("a standing figure that no longer adds up stops the correction (decision 468)", () => {
  // What stands is read from the store: a figure changed there behind the engine's back reaches the
  // pure pipeline as plain data, and the note built on it is refused before anything is returned.
  const resources = () => [
    history("instance", "i6", [
      ["2026-09-20T00:00:00.000Z", "create", "p2", small, false],
      ["2026-10-11T00:00:00.000Z", "delete", "p2", {}, true],
    ]),
  ];
  const cent = decimal("0.01");

  test("a statement whose total is not its net: the note's total is not its net", async () => {
    const registry = registryWith(rates);
    const finalized = await meter(resources(), registry, (e) => !e.late);
    const statements = finalized.statements.map((s) =>
      s.project_id === "p2" ? { ...s, total: s.total.plus(cent) } : s,
    );
    const refused = correct(resources(), registry, { rated: finalized.rated, statements });
    await expect(refused).rejects.toThrow(MoneyInvariantError);
    await expect(refused).rejects.toMatchObject({
      invariant: "note_total_is_net",
      breach: { document: "credit note", cloud: "c1", project_id: "p2" },
    });
  });

  test("a line whose amount is not the one its statement summed: the note's base is not its line deltas", async () => {
    const registry = registryWith(rates);
    const finalized = await meter(resources(), registry, (e) => !e.late);
    const rated = finalized.rated.map(({ resource, rating }) => ({
      resource,
      rating: {
        ...rating,
        lines: rating.lines.map((l, i) => (i === 0 ? { ...l, amount: l.amount.plus(cent) } : l)),
      },
    }));
    await expect(
      correct(resources(), registry, { rated, statements: finalized.statements }),
    ).rejects.toMatchObject({ invariant: "note_base_is_line_deltas" });
  });
});
