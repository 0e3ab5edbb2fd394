import type { OracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import type { OracleStatement } from "../../lib/billing/simulator/oracle-bill/oracle-statements.ts";
import { adjustmentWalk } from "./registry-plan.ts";

/**
 * The cases of issue 29 a money-edges month shows, counted on the oracle's bills of the complete month
 * and of the month as the finalized run reads it (decision 548): what the draw must see before it
 * settles on a registry, and what its test asserts for many seeds. The run's own checks
 * (`edges-checks.ts`) count the same cases again on the engine's output.
 */
export interface EdgeCases {
  unpricedTypes: number;
  unpricedStates: number;
  lineTies: number;
  adjustmentTies: number;
  shareTies: number;
  kickbacksDropped: number;
  deepestLevel: number;
  metAgain: number;
  beyond: number;
  /** Adjustment lines the correction moves, per type. */
  moved: Record<OracleStatement["adjustments"][number]["type"], number>;
  /** Credit-note deltas (a rated line or an adjustment line) whose new figure lies on half a cent. */
  noteTies: number;
}

const adjustmentKey = (a: { relation_id: string; type: string; scope: string }) =>
  `${a.relation_id} ${a.type} ${a.scope}`;

export function edgeCases(complete: OracleBill, finalized: OracleBill): EdgeCases {
  const moved: EdgeCases["moved"] = { surcharge: 0, discount: 0, project_discount: 0, kickback: 0 };
  let noteTies = 0;
  const before = new Map((finalized.statements ?? []).map((s) => [`${s.cloud}/${s.project_id}`, s]));
  const after = new Map((complete.statements ?? []).map((s) => [`${s.cloud}/${s.project_id}`, s]));
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = new Map((before.get(key)?.adjustments ?? []).map((a) => [adjustmentKey(a), a]));
    const is = new Map((after.get(key)?.adjustments ?? []).map((a) => [adjustmentKey(a), a]));
    for (const k of new Set([...was.keys(), ...is.keys()])) {
      const line = is.get(k) ?? was.get(k);
      if (line === undefined || (is.get(k)?.amount ?? 0n) === (was.get(k)?.amount ?? 0n)) continue;
      moved[line.type] += 1;
      const now = is.get(k);
      if (now !== undefined && (now.tie || now.shares.some((s) => s.tie))) noteTies += 1;
    }
  }
  for (const [resource, rating] of complete.resources)
    for (const line of rating.lines) {
      const was = finalized.resources
        .get(resource)
        ?.lines.find((l) => l.project_id === line.project_id && l.dimension === line.dimension);
      if (line.tie && line.amount !== (was?.amount ?? 0n)) noteTies += 1;
    }
  const f = complete.findings;
  return {
    unpricedTypes: f.unpricedTypes,
    unpricedStates: f.unpricedStates,
    lineTies: f.lineTies,
    adjustmentTies: f.adjustmentTies,
    shareTies: f.shareTies,
    kickbacksDropped: f.kickbacksDropped,
    deepestLevel: f.deepestLevel,
    metAgain: f.metAgain,
    beyond: f.beyond,
    moved,
    noteTies,
  };
}

/** The cases that did not occur, by name: none for a month that shows them all. */
export function missingCases(cases: EdgeCases): string[] {
  const { moved, deepestLevel, ...counts } = cases;
  return [
    ...Object.entries(counts)
      .filter(([, n]) => n === 0)
      .map(([name]) => name),
    ...(deepestLevel < adjustmentWalk.depth ? [`a walk ${adjustmentWalk.depth} levels deep`] : []),
    ...Object.entries(moved)
      .filter(([, n]) => n === 0)
      .map(([type]) => `a ${type} the correction moves`),
  ];
}
