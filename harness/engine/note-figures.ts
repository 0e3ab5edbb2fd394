import { expect } from "bun:test";
import fc from "fast-check";
import type { CreditNote, StatementFigures } from "../../lib/billing/corrections/credit-note.ts";
import { projectKey } from "../../lib/billing/statements/registry.ts";
import { type Decimal, formatMoney, zero } from "../../lib/foundation/money/decimal.ts";
import { monthArb, type Shape } from "./late-month.ts";

/** A document's figures by name: its four totals, each plan line and each adjustment line's `value`. */
function named<K extends string, V extends string>(
  doc:
    | (Record<K, Decimal> & {
        plan: {
          tier_lines: readonly (Record<V, Decimal> & { dimension: string })[];
          minimums: readonly (Record<V, Decimal> & { scope: string })[];
        } | null;
        adjustments: readonly (Record<V, Decimal> & { type: string; relation_id: string; scope: string })[];
      })
    | undefined,
  totals: readonly [base: K, net: K, kickback: K, total: K],
  value: V,
): Map<string, Decimal> {
  const out = new Map<string, Decimal>();
  if (doc === undefined) return out;
  for (const [name, key] of [
    ["base", totals[0]],
    ["net", totals[1]],
    ["kickback", totals[2]],
    ["total", totals[3]],
  ] as const)
    out.set(name, doc[key]);
  for (const t of doc.plan?.tier_lines ?? []) out.set(`tier:${t.dimension}`, t[value]);
  for (const m of doc.plan?.minimums ?? []) out.set(`minimum:${m.scope}`, m[value]);
  for (const a of doc.adjustments) out.set(`${a.type}:${a.relation_id}:${a.scope}`, a[value]);
  return out;
}

/** Every figure of a statement a note moves, by name: totals, plan lines, adjustments. */
export const figures = (s: StatementFigures | undefined) =>
  named(s, ["base_cost", "net_cost", "kickback_total", "total"], "amount");

/** A note's deltas under the same names. */
export const deltas = (n: CreditNote | undefined) =>
  named(n, ["base_delta", "net_delta", "kickback_delta", "total"], "delta");

/** Documents by `<cloud>/<project_id>`. */
export const byProject = <T extends { cloud: string; project_id: string }>(items: readonly T[]) =>
  new Map(items.map((s) => [projectKey(s.cloud, s.project_id), s]));

/**
 * Over random months of `monthArb`: every finalized figure plus its note's delta is the complete month's
 * figure, per project and name, to the cent (a note is the difference, docs/engine.md#credit-notes).
 */
export async function expectNotesAddUp(
  month: (spec: Shape<typeof monthArb>) => Promise<{
    finalized: { statements: readonly StatementFigures[] };
    complete: { statements: readonly StatementFigures[] };
    notes: readonly CreditNote[];
  }>,
  numRuns: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(monthArb, async (spec) => {
      const { finalized, complete, notes } = await month(spec);
      const before = byProject(finalized.statements);
      const after = byProject(complete.statements);
      const noted = byProject(notes);
      for (const key of new Set([...before.keys(), ...after.keys(), ...noted.keys()])) {
        const old = figures(before.get(key));
        const now = figures(after.get(key));
        const moved = deltas(noted.get(key));
        const shown = (m: Map<string, Decimal>, name: string) => formatMoney(m.get(name) ?? zero);
        for (const name of new Set([...old.keys(), ...now.keys(), ...moved.keys()]))
          expect([key, name, formatMoney((old.get(name) ?? zero).plus(moved.get(name) ?? zero))]).toEqual([
            key,
            name,
            shown(now, name),
          ]);
      }
    }),
    { numRuns },
  );
}
