import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compare } from "../../lib/foundation/collections/compare.ts";
import { decimal, formatMoney, zero } from "../../lib/foundation/money/decimal.ts";

/** Where the golden months are kept: `fixtures/golden/<scenario>/seed-<n>.json`. */
export const goldenDir = join(import.meta.dir, "../../fixtures/golden");

/** The totals of one scenario month that must not move unless someone means them to. */
export interface GoldenMonth {
  scenario: string;
  seed: number;
  period: string;
  tenants: number;
  /** Per `<cloud>/<project_id>`: the finalized statement's total. */
  statements: Record<string, string>;
  /** Per `<cloud>/<project_id>`: the credit note's total (empty until a correction plays). */
  credit_notes: Record<string, string>;
}

export function goldenPath(dir: string, scenario: string, seed: number): string {
  return join(dir, scenario, `seed-${seed}.json`);
}

/** Reads a golden month, or null when none is kept for it. */
export function readGolden(path: string): GoldenMonth | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, "utf8")) as GoldenMonth;
}

/** Writes it with sorted keys, so that a refresh shows as a small diff in review. */
export function writeGolden(path: string, month: GoldenMonth): void {
  const sorted = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    `${JSON.stringify({ ...month, statements: sorted(month.statements), credit_notes: sorted(month.credit_notes) }, null, 2)}\n`,
  );
}

function movements(what: string, kept: Record<string, string>, now: Record<string, string>): string[] {
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(kept), ...Object.keys(now)])].sort()) {
    const before = kept[key];
    const after = now[key];
    if (before === after) continue;
    const moved = decimal(after ?? "0").minus(decimal(before ?? "0"));
    const sign = moved.gt(zero) ? "+" : "";
    const shown =
      before === undefined
        ? `new, ${after}`
        : after === undefined
          ? `gone, was ${before}`
          : `${before} → ${after}`;
    out.push(`${what} ${key} moved by ${sign}${formatMoney(moved)} (${shown})`);
  }
  return out;
}

/**
 * What moved between the kept month and this one: one line per project whose statement or credit note
 * total changed, naming it and the amount it moved by; empty when nothing did. A month of another
 * period or scale is not comparable and says so.
 */
export function goldenMovements(kept: GoldenMonth, now: GoldenMonth): string[] {
  if (kept.period !== now.period || kept.tenants !== now.tenants)
    return [
      `the golden month is of ${kept.period} with ${kept.tenants} tenants, this run of ${now.period} with ${now.tenants}`,
    ];
  return [
    ...movements("statement", kept.statements, now.statements),
    ...movements("credit note", kept.credit_notes, now.credit_notes),
  ];
}
