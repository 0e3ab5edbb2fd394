import type { Oracle } from "../simulator/oracle.ts";
import { scaledText } from "../simulator/oracle-bill/exact.ts";
import type { OracleBill } from "../simulator/oracle-bill/oracle-bill.ts";
import type { RatedRow } from "./rated-csv.ts";
import type { StatementComparison } from "./statement-comparison.ts";

/** A resource whose rated lines differ between the oracle and the export. */
export interface Difference {
  resource: string;
  /** Per `<project>/<dimension>`: what the oracle's intervals rate to and what the export says (`-` for none). */
  lines: { line: string; oracle: string; export: string }[];
  /** The oracle marks the resource `missing-create`: its difference is expected and no correction closes it. */
  missingCreate: boolean;
}

export interface Comparison {
  resources: number;
  differences: Difference[];
  /**
   * A correction's export compared with the export it corrects (`--corrects`): its lines whose amount
   * is the oracle's and whose quantity is still the finalized one. A correction stores only amount
   * deltas (docs/engine.md#correction-rules, rule 1), so a quantity that moved by less than a cent's
   * worth keeps its finalized figure, and a line of 0.00 the late events made has none; such a line is
   * counted here, not as a difference (decision 426).
   */
  kept?: number;
  /** With a registry snapshot (`--registry`): the statements and kickback settlements compared too. */
  statements?: StatementComparison;
}

type Lines = Map<string, { quantity: string; amount: string }>;

/** Per resource (`<type>/<id>`), per `<project>/<dimension>`: quantity and amount as rated and printed. */
export type RatedFigures = Map<string, Map<string, { quantity: string; amount: string }>>;

/**
 * What the oracle's bill rates each resource to (decision 454), per resource and `<project>/<dimension>`,
 * printed as an export prints them.
 */
export function billFigures(bill: OracleBill): RatedFigures {
  const figures: RatedFigures = new Map();
  for (const [resource, rating] of bill.resources) {
    const lines: Lines = new Map();
    for (const l of rating.lines)
      lines.set(`${l.project_id}/${l.dimension}`, { quantity: l.quantity, amount: scaledText(l.amount, 2) });
    figures.set(resource, lines);
  }
  return figures;
}

/** An export's lines of one cloud, per resource (`<type>/<id>`) and `<project>/<dimension>`. */
function linesOf(rows: readonly RatedRow[], cloud: string): Map<string, Lines> {
  const exported = new Map<string, Lines>();
  for (const row of rows) {
    if (row.cloud !== cloud) continue;
    const key = `${row.resource_type}/${row.resource_id}`;
    const lines = exported.get(key) ?? new Map();
    lines.set(`${row.project_id}/${row.dimension}`, { quantity: row.quantity, amount: row.amount });
    exported.set(key, lines);
  }
  return exported;
}

/**
 * `simulator compare` (pure): the oracle's bill of every resource (`billFigures`) compared per resource
 * with the export's rated lines of the oracle's cloud (amount and quantity per project and dimension). A resource only one side has differs unless the other side would rate it to nothing.
 * With `finalized` (the rows of the export a correction corrects), a line whose amount is the oracle's
 * and whose quantity is the finalized line's is kept, not a difference: a correction restates amounts
 * only (decision 426).
 */
export function compareWithOracle(
  oracle: Oracle,
  bill: OracleBill,
  rows: readonly RatedRow[],
  finalized?: readonly RatedRow[],
): Comparison {
  const expected = billFigures(bill);
  const marks = new Map(
    oracle.resources.map((r) => [`${r.resource_type}/${r.resource_id}`, r.faults.includes("missing-create")]),
  );
  const exported = linesOf(rows, oracle.cloud);
  const before = finalized === undefined ? undefined : linesOf(finalized, oracle.cloud);
  let kept = 0;
  const keys = [...new Set([...expected.keys(), ...exported.keys()])].sort();
  const differences: Difference[] = [];
  for (const key of keys) {
    const a = expected.get(key) ?? new Map();
    const b = exported.get(key) ?? new Map();
    const lines: Difference["lines"] = [];
    for (const line of [...new Set([...a.keys(), ...b.keys()])].sort()) {
      const x = a.get(line);
      const y = b.get(line);
      if (x?.amount === y?.amount && x?.quantity === y?.quantity) continue;
      if (y !== undefined && x?.amount === y.amount && before?.get(key)?.get(line)?.quantity === y.quantity) {
        kept += 1;
        continue;
      }
      // A line the late events made, of 0.00: its delta is zero, so the correction books no line and
      // the finalized run had none either; it keeps the finalized figure, nothing (decision 426).
      if (
        y === undefined &&
        x?.amount === "0.00" &&
        before !== undefined &&
        before.get(key)?.get(line) === undefined
      ) {
        kept += 1;
        continue;
      }
      lines.push({
        line,
        oracle: x === undefined ? "-" : `${x.amount} (${x.quantity})`,
        export: y === undefined ? "-" : `${y.amount} (${y.quantity})`,
      });
    }
    if (lines.length > 0) differences.push({ resource: key, lines, missingCreate: marks.get(key) ?? false });
  }
  return { resources: keys.length, differences, ...(finalized === undefined ? {} : { kept }) };
}

/**
 * The lines `compare` prints: one per differing resource, then the tally; with statements compared,
 * one per differing statement or settlement, then their tally.
 */
export function comparisonReport(comparison: Comparison): string[] {
  const out = comparison.differences.map(
    (d) =>
      `${d.resource}${d.missingCreate ? " [missing-create]" : ""}: ${d.lines
        .map((l) => `${l.line} oracle ${l.oracle} export ${l.export}`)
        .join("; ")}`,
  );
  const marked = comparison.differences.filter((d) => d.missingCreate).length;
  const kept = comparison.kept === undefined ? "" : `, ${comparison.kept} keep the finalized quantity`;
  out.push(
    `compared ${comparison.resources} resources: ${comparison.differences.length} differ (${marked} marked missing-create)${kept}`,
  );
  const statements = comparison.statements;
  if (statements === undefined) return out;
  for (const d of statements.differences)
    out.push(
      `${d.subject}: ${d.lines.map((l) => `${l.line} oracle ${l.oracle} export ${l.export}`).join("; ")}`,
    );
  out.push(
    `compared ${statements.statements} ${statements.compared} and ${statements.settlements} kickback settlements: ${statements.differences.length} differ`,
  );
  return out;
}
