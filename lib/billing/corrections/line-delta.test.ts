import { describe, expect, test } from "bun:test";
import { decimal, formatMoney } from "../../foundation/money/decimal.ts";
import { diffResourceLines, type LineFigures } from "./line-delta.ts";

const resource = { cloud: "c1", platform: "platform_a", resource_type: "instance", resource_id: "i1" };
const line = (project_id: string, dimension: string, quantity: string, amount: string): LineFigures => ({
  project_id,
  dimension,
  quantity: decimal(quantity),
  unit_price: decimal("0.0125"),
  amount: decimal(amount),
});
const own = (cloud: string, project_id: string) => ({ cloud, project_id });
const shown = (deltas: ReturnType<typeof diffResourceLines>) =>
  deltas.map((d) => [
    d.note_project_id,
    d.project_id,
    d.dimension,
    formatMoney(d.old_amount),
    formatMoney(d.new_amount),
    formatMoney(d.delta),
  ]);

describe("diffResourceLines", () => {
  test("only amounts that moved, per project and dimension; a line may appear or go", () => {
    const deltas = diffResourceLines({
      resource,
      old: [
        line("p1", "vcpus", "744", "9.30"),
        line("p1", "ram_gb", "1488", "6.25"),
        line("p2", "vcpus", "1", "0.01"),
      ],
      new: [
        line("p1", "vcpus", "240", "3.00"),
        line("p1", "ram_gb", "1488", "6.25"),
        line("p3", "vcpus", "1", "0.01"),
      ],
      oldNote: own,
      newNote: own,
    });
    expect(shown(deltas)).toEqual([
      ["p1", "p1", "vcpus", "9.30", "3.00", "-6.30"],
      ["p2", "p2", "vcpus", "0.01", "0.00", "-0.01"],
      ["p3", "p3", "vcpus", "0.00", "0.01", "0.01"],
    ]);
  });

  test("a quantity that moved by less than a cent's worth is no delta: only non-zero deltas are kept", () => {
    const deltas = diffResourceLines({
      resource,
      old: [line("p1", "vcpus", "744", "9.30"), line("p1", "ram_gb", "1488", "6.25")],
      new: [line("p1", "vcpus", "744.0001", "9.30"), line("p1", "ram_gb", "1488.5", "6.26")],
      oldNote: own,
      newNote: own,
    });
    expect(shown(deltas)).toEqual([["p1", "p1", "ram_gb", "6.25", "6.26", "0.01"]]);
  });

  test("a project whose attribution moved leaves the old note and joins the new one, whole", () => {
    const deltas = diffResourceLines({
      resource,
      old: [line("t1", "vcpus", "744", "9.30")],
      new: [line("t1", "vcpus", "744", "9.30")],
      oldNote: () => own("g1", "cm-old"),
      newNote: () => own("g1", "cm-new"),
    });
    expect(shown(deltas)).toEqual([
      ["cm-new", "t1", "vcpus", "0.00", "9.30", "9.30"],
      ["cm-old", "t1", "vcpus", "9.30", "0.00", "-9.30"],
    ]);
  });
});
