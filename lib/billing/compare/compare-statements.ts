import { ValidationError } from "../../foundation/errors/svc-error.ts";
import { type Decimal, decimal, formatMoney, zero } from "../../foundation/money/decimal.ts";
import { scaledText } from "../simulator/oracle-bill/exact.ts";
import type { OracleBill } from "../simulator/oracle-bill/oracle-bill.ts";
import type { StatementComparison, StatementDifference } from "./statement-comparison.ts";

/** A statement of an export's `run.json`, as far as the comparison reads it. */
export interface ExportedStatement {
  cloud: string;
  project_id: string;
  total: string;
  base_cost?: string;
  net_cost?: string;
  kickback_total?: string;
  adjustments?: {
    type: string;
    relation_target: string;
    relation_id: string;
    scope: string;
    rate: string;
    base: string;
    amount: string;
  }[];
  related_costs?: { project_id: string; total: string }[];
  /** Its plan's lines, when a plan put any on it (docs/pricing-model.md#on-a-statement). */
  plan?: ExportedPlan;
}

/** A statement's plan lines, as far as the comparison reads them. */
export interface ExportedPlan {
  tier_lines: { dimension: string; amount: string }[];
  minimums: { scope: string; usage: string; amount: string }[];
}

/** A credit note's plan lines that moved. */
interface ExportedPlanDeltas {
  tier_lines: { dimension: string; delta: string }[];
  minimums: { scope: string; delta: string }[];
}

/** A credit note of a correction's `run.json`, as far as the comparison reads it. */
export interface ExportedCreditNote {
  cloud: string;
  project_id: string;
  total: string;
  base_delta: string;
  net_delta: string;
  kickback_delta: string;
  adjustments: {
    type: string;
    relation_target: string;
    relation_id: string;
    scope: string;
    rate: string;
    delta: string;
  }[];
  related_costs: { project_id: string; total: string }[];
  plan?: ExportedPlanDeltas;
}

/** A kickback line of a beneficiary's breakdown in `kickbacks.json`. */
interface ExportedKickback {
  cloud: string;
  project_id: string;
  relation_id: string;
  scope: string;
  rate: string;
  base: string;
  amount: string;
}

/** A beneficiary of an export's `kickbacks.json`, as far as the comparison reads it. */
export interface ExportedBeneficiary {
  beneficiary: string;
  kickback_total: string;
  projects: number;
  breakdown: ExportedKickback[];
}

/** A regular run's export as far as the comparison reads it, or what the oracle says it must be. */
export interface ExportedMonth {
  statements: readonly ExportedStatement[];
  beneficiaries: readonly ExportedBeneficiary[];
}

type Figures = Map<string, string>;

/** Names a figure once; a second line of the same name (the same adjustment twice) is numbered. */
function put<V>(figures: Map<string, V>, name: string, value: V): void {
  let key = name;
  for (let n = 2; figures.has(key); n++) key = `${name}~${n}`;
  figures.set(key, value);
}

function statementFigures(s: ExportedStatement): Figures {
  const figures: Figures = new Map([["total", s.total]]);
  if (s.adjustments !== undefined) {
    figures.set("base_cost", s.base_cost ?? "-");
    figures.set("net_cost", s.net_cost ?? "-");
    figures.set("kickback_total", s.kickback_total ?? "-");
    for (const a of s.adjustments)
      put(
        figures,
        `${a.type}:${a.scope}:${a.rate}@${a.relation_target}#${a.relation_id}`,
        `${a.amount} (${a.base})`,
      );
  }
  for (const r of s.related_costs ?? []) put(figures, `related:${r.project_id}`, r.total);
  for (const t of s.plan?.tier_lines ?? []) put(figures, `tier:${t.dimension}`, t.amount);
  for (const m of s.plan?.minimums ?? []) put(figures, `minimum:${m.scope}`, `${m.amount} (${m.usage})`);
  return figures;
}

function beneficiaryFigures(b: ExportedBeneficiary): Figures {
  const figures: Figures = new Map([["kickback_total", `${b.kickback_total} (${b.projects})`]]);
  for (const l of b.breakdown)
    put(
      figures,
      `${l.cloud}/${l.project_id}:${l.scope}:${l.rate}#${l.relation_id}`,
      `${l.amount} (${l.base})`,
    );
  return figures;
}

const money = (cents: bigint) => scaledText(cents, 2);

/**
 * The oracle's statements and settlements in the export's words (`run.json` statements, `kickbacks.json`
 * beneficiaries), from its own bill (decision 454); a bill priced without a registry has none.
 */
export function oracleExport(bill: OracleBill): ExportedMonth {
  const statements = (bill.statements ?? []).map(
    (s): ExportedStatement => ({
      cloud: s.cloud,
      project_id: s.project_id,
      total: money(s.total),
      ...(s.adjustments.length === 0
        ? {}
        : {
            base_cost: money(s.base),
            net_cost: money(s.net),
            kickback_total: money(s.kickback),
            adjustments: s.adjustments.map((a) => ({
              type: a.type,
              relation_target: a.relation_target,
              relation_id: a.relation_id,
              scope: a.scope,
              rate: a.rate,
              base: money(a.base),
              amount: money(a.amount),
            })),
          }),
      related_costs: s.related.map((r) => ({ project_id: r.project_id, total: money(r.total) })),
      ...(s.tiers.length === 0 && s.minimums.length === 0
        ? {}
        : {
            plan: {
              tier_lines: s.tiers.map((t) => ({
                dimension: `${t.platform}.${t.resource_type}.${t.dimension}`,
                amount: money(t.amount),
              })),
              minimums: s.minimums.map((m) => ({
                scope: m.scope,
                usage: money(m.usage),
                amount: money(m.amount),
              })),
            },
          }),
    }),
  );
  const beneficiaries = (bill.settlements ?? []).map(
    (b): ExportedBeneficiary => ({
      beneficiary: b.beneficiary,
      kickback_total: money(b.total),
      projects: b.projects,
      breakdown: b.lines.map(({ cloud, project_id, line }) => ({
        cloud,
        project_id,
        relation_id: line.relation_id,
        scope: line.scope,
        rate: line.rate,
        base: money(line.base),
        amount: money(line.amount),
      })),
    }),
  );
  return { statements, beneficiaries };
}

function differing(
  subject: string,
  a: Figures | undefined,
  b: Figures | undefined,
): StatementDifference | null {
  const x = a ?? new Map<string, string>();
  const y = b ?? new Map<string, string>();
  const lines: StatementDifference["lines"] = [];
  for (const line of [...new Set([...x.keys(), ...y.keys()])].sort()) {
    const oracle = x.get(line) ?? "-";
    const exported = y.get(line) ?? "-";
    if (oracle !== exported) lines.push({ line, oracle, export: exported });
  }
  return lines.length === 0 ? null : { subject, lines };
}

/**
 * Compares the oracle's statements (`oracleExport`) with an export's, figure by figure: each
 * statement's total, with adjustments its base, net and kickback totals and every adjustment line
 * (amount and base), its attributed tenants' totals, its plan's tier lines (`tier:<dimension>`) and
 * minimums (`minimum:<scope>`, top-up and usage); and each beneficiary's settlement and kickback
 * lines. A statement or beneficiary only one side has differs in every figure.
 */
export function compareStatements(oracle: ExportedMonth, exported: ExportedMonth): StatementComparison {
  const differences: StatementDifference[] = [];
  const statementKey = (s: ExportedStatement) => `${s.cloud}/${s.project_id}`;
  const a = new Map(oracle.statements.map((s) => [statementKey(s), statementFigures(s)]));
  const b = new Map(exported.statements.map((s) => [statementKey(s), statementFigures(s)]));
  const statements = [...new Set([...a.keys(), ...b.keys()])].sort();
  for (const key of statements) {
    const d = differing(`statement ${key}`, a.get(key), b.get(key));
    if (d !== null) differences.push(d);
  }
  const x = new Map(oracle.beneficiaries.map((s) => [s.beneficiary, beneficiaryFigures(s)]));
  const y = new Map(exported.beneficiaries.map((s) => [s.beneficiary, beneficiaryFigures(s)]));
  const settlements = [...new Set([...x.keys(), ...y.keys()])].sort();
  for (const key of settlements) {
    const d = differing(`kickbacks ${key}`, x.get(key), y.get(key));
    if (d !== null) differences.push(d);
  }
  return {
    compared: "statements",
    statements: statements.length,
    settlements: settlements.length,
    differences,
  };
}

type Amounts = Map<string, Decimal>;

const adjustmentName = (a: {
  type: string;
  scope: string;
  rate: string;
  relation_target: string;
  relation_id: string;
}) => `${a.type}:${a.scope}:${a.rate}@${a.relation_target}#${a.relation_id}`;

/** A statement's figures as amounts; an unadjusted one's base and net are its total. */
function statementAmounts(s: ExportedStatement): Amounts {
  const total = decimal(s.total);
  const amounts: Amounts = new Map([
    ["total", total],
    ["base", decimal(s.base_cost ?? s.total)],
    ["net", decimal(s.net_cost ?? s.total)],
    ["kickback", decimal(s.kickback_total ?? "0")],
  ]);
  for (const a of s.adjustments ?? []) put(amounts, adjustmentName(a), decimal(a.amount));
  for (const r of s.related_costs ?? []) put(amounts, `related:${r.project_id}`, decimal(r.total));
  for (const t of s.plan?.tier_lines ?? []) put(amounts, `tier:${t.dimension}`, decimal(t.amount));
  for (const m of s.plan?.minimums ?? []) put(amounts, `minimum:${m.scope}`, decimal(m.amount));
  return amounts;
}

/** A credit note's deltas under the names of the statement figures they move. */
function noteAmounts(n: ExportedCreditNote): Amounts {
  const amounts: Amounts = new Map([
    ["total", decimal(n.total)],
    ["base", decimal(n.base_delta)],
    ["net", decimal(n.net_delta)],
    ["kickback", decimal(n.kickback_delta)],
  ]);
  for (const a of n.adjustments) put(amounts, adjustmentName(a), decimal(a.delta));
  for (const r of n.related_costs) put(amounts, `related:${r.project_id}`, decimal(r.total));
  for (const t of n.plan?.tier_lines ?? []) put(amounts, `tier:${t.dimension}`, decimal(t.delta));
  for (const m of n.plan?.minimums ?? []) put(amounts, `minimum:${m.scope}`, decimal(m.delta));
  return amounts;
}

function beneficiaryAmounts(b: ExportedBeneficiary): Amounts {
  const amounts: Amounts = new Map([["kickback_total", decimal(b.kickback_total)]]);
  for (const l of b.breakdown) {
    const name = `${l.cloud}/${l.project_id}:${l.scope}:${l.rate}#${l.relation_id}`;
    put(amounts, name, decimal(l.amount));
    put(amounts, `${name}:base`, decimal(l.base));
  }
  return amounts;
}

/** `after − before` per figure, a figure one side lacks counting as zero. */
function moved(after: Amounts | undefined, before: Amounts | undefined): Amounts {
  const a = after ?? new Map<string, Decimal>();
  const b = before ?? new Map<string, Decimal>();
  const out: Amounts = new Map();
  for (const name of new Set([...a.keys(), ...b.keys()]))
    out.set(name, (a.get(name) ?? zero).minus(b.get(name) ?? zero));
  return out;
}

/** The figures whose amounts differ, a figure one side lacks counting as zero. */
function differingAmounts(subject: string, expected: Amounts, exported: Amounts): StatementDifference | null {
  const lines: StatementDifference["lines"] = [];
  for (const line of [...new Set([...expected.keys(), ...exported.keys()])].sort()) {
    const x = expected.get(line) ?? zero;
    const y = exported.get(line) ?? zero;
    if (!x.eq(y)) lines.push({ line, oracle: formatMoney(x), export: formatMoney(y) });
  }
  return lines.length === 0 ? null : { subject, lines };
}

/**
 * Compares a correction's credit notes with what the oracle says they must be: per project, the
 * oracle's statement (`oracleExport`) less the finalized run's exported statement, figure by
 * figure (total, base, net and kickback deltas, each adjustment's delta, each attributed tenant's);
 * and per beneficiary, the oracle's settlement less the finalized one against the correction's
 * `kickbacks.json`, whose figures are deltas too (decision 527). A project no note names has moved by
 * nothing, so a figure one side lacks counts as zero.
 */
export function compareCreditNotes(
  oracle: ExportedMonth,
  finalized: ExportedMonth,
  correction: { notes: readonly ExportedCreditNote[]; beneficiaries: readonly ExportedBeneficiary[] },
): StatementComparison {
  const key = (s: { cloud: string; project_id: string }) => `${s.cloud}/${s.project_id}`;
  const now = new Map(oracle.statements.map((s) => [key(s), statementAmounts(s)]));
  const before = new Map(finalized.statements.map((s) => [key(s), statementAmounts(s)]));
  const notes = new Map(correction.notes.map((n) => [key(n), noteAmounts(n)]));
  const differences: StatementDifference[] = [];
  const projects = [...new Set([...now.keys(), ...before.keys(), ...notes.keys()])].sort();
  for (const project of projects) {
    const d = differingAmounts(
      `credit note ${project}`,
      moved(now.get(project), before.get(project)),
      notes.get(project) ?? new Map(),
    );
    if (d !== null) differences.push(d);
  }
  const settled = new Map(oracle.beneficiaries.map((b) => [b.beneficiary, beneficiaryAmounts(b)]));
  const paid = new Map(finalized.beneficiaries.map((b) => [b.beneficiary, beneficiaryAmounts(b)]));
  const owed = new Map(correction.beneficiaries.map((b) => [b.beneficiary, beneficiaryAmounts(b)]));
  const beneficiaries = [...new Set([...settled.keys(), ...paid.keys(), ...owed.keys()])].sort();
  for (const beneficiary of beneficiaries) {
    const d = differingAmounts(
      `kickbacks ${beneficiary}`,
      moved(settled.get(beneficiary), paid.get(beneficiary)),
      owed.get(beneficiary) ?? new Map(),
    );
    if (d !== null) differences.push(d);
  }
  return {
    compared: "credit notes",
    statements: notes.size,
    settlements: beneficiaries.length,
    differences,
  };
}

/** What an export's `run.json` holds for the comparison: a regular run's statements, or a correction's notes. */
export type ExportedRun =
  | { kind: "statements"; run_id: string; statements: ExportedStatement[] }
  | { kind: "credit notes"; run_id: string; corrects_run_id: string; notes: ExportedCreditNote[] };

export function readExportedRun(text: string): ExportedRun {
  const run = parsed(text, "run.json") as {
    run_id?: unknown;
    corrects_run_id?: unknown;
    statements?: ExportedStatement[];
    credit_notes?: ExportedCreditNote[];
  };
  const runId = typeof run.run_id === "string" ? run.run_id : "";
  if (Array.isArray(run.statements)) return { kind: "statements", run_id: runId, statements: run.statements };
  if (Array.isArray(run.credit_notes) && typeof run.corrects_run_id === "string")
    return {
      kind: "credit notes",
      run_id: runId,
      corrects_run_id: run.corrects_run_id,
      notes: run.credit_notes,
    };
  throw new ValidationError("the export's run.json holds neither statements nor credit notes");
}

/** The beneficiaries of an export's `kickbacks.json`. */
export function readExportedKickbacks(text: string): ExportedBeneficiary[] {
  const report = parsed(text, "kickbacks.json") as { beneficiaries?: ExportedBeneficiary[] };
  if (!Array.isArray(report.beneficiaries))
    throw new ValidationError("the export's kickbacks.json holds no beneficiaries");
  return report.beneficiaries;
}

function parsed(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError(`the export's ${file} is not JSON`);
  }
}
