import type { KickbackBreakdown } from "../engine/kickback-report.ts";
import { RunWarnings } from "../engine/run-warnings.ts";
import { kickbackShares, partnerSettlements } from "../engine/statement-rows.ts";
import { ValidationError } from "../errors/svc-error.ts";
import { platformA } from "../events/event.ts";
import { decimal, formatMoney, formatRate } from "../money/decimal.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import type { Oracle } from "../simulator/oracle.ts";
import { buildStatements, type Statement } from "../statements/build-statements.ts";
import { ProjectCosts } from "../statements/project-costs.ts";
import { Registry } from "../statements/registry.ts";
import { rateOracle } from "./compare-oracle.ts";
import type { RegistrySnapshot } from "./registry-snapshot.ts";

/** A statement or a beneficiary's settlement whose figures differ between the oracle and the export. */
export interface StatementDifference {
  /** `statement <cloud>/<project_id>` or `kickbacks <beneficiary>`. */
  subject: string;
  lines: { line: string; oracle: string; export: string }[];
}

export interface StatementComparison {
  statements: number;
  settlements: number;
  differences: StatementDifference[];
}

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
}

/** A beneficiary of an export's `kickbacks.json`, as far as the comparison reads it. */
export interface ExportedBeneficiary {
  beneficiary: string;
  kickback_total: string;
  projects: number;
  breakdown: KickbackBreakdown[];
}

/**
 * The statements the oracle's month comes to (pure): its resources rated as `simulator compare`
 * rates them (`rateOracle`), summed per project and bucket as a run sums its lines (`ProjectCosts`),
 * attributed and adjusted by the engine's own `buildStatements` over the registry snapshot. So the
 * rules of attribution and adjustment exist once, and what the comparison proves is that the engine
 * applied them to the right costs and the right registry (decision 523).
 */
export function oracleStatements(
  oracle: Oracle,
  model: PricingModel,
  registry: RegistrySnapshot,
): Statement[] {
  const costs = new ProjectCosts();
  for (const [resource, lines] of rateOracle(oracle, model)) {
    const resourceType = resource.slice(0, resource.indexOf("/"));
    for (const [line, figures] of lines) {
      costs.add(
        { cloud: oracle.cloud, platform: platformA, resource_type: resourceType },
        line.slice(0, line.indexOf("/")),
        decimal(figures.amount),
      );
    }
  }
  const period = { name: oracle.period_from.slice(0, 7), from: oracle.period_from, to: oracle.period_to };
  return buildStatements(
    costs.costs(),
    new Registry(registry.projects, registry.relations, period),
    { relationTypes: registry.adjustment_relation_types, depth: registry.adjustment_depth },
    new RunWarnings(),
  );
}

type Figures = Map<string, string>;

/** Names a figure once; a second line of the same name (the same adjustment twice) is numbered. */
function put(figures: Figures, name: string, value: string): void {
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

/** The oracle's statements in the export's words: `run.json` statements and `kickbacks.json` beneficiaries. */
function asExported(statements: readonly Statement[]): {
  statements: ExportedStatement[];
  beneficiaries: ExportedBeneficiary[];
} {
  const exported = statements.map(
    (s): ExportedStatement => ({
      cloud: s.cloud,
      project_id: s.project_id,
      total: formatMoney(s.total),
      ...(s.adjustments.length === 0
        ? {}
        : {
            base_cost: formatMoney(s.base_cost),
            net_cost: formatMoney(s.net_cost),
            kickback_total: formatMoney(s.kickback_total),
            adjustments: s.adjustments.map((a) => ({
              type: a.type,
              relation_target: a.relation_target,
              relation_id: a.relation_id,
              scope: a.scope,
              rate: formatRate(a.rate),
              base: formatMoney(a.base),
              amount: formatMoney(a.amount),
            })),
          }),
      related_costs: s.related.map((r) => ({ project_id: r.project_id, total: formatMoney(r.total) })),
    }),
  );
  const beneficiaries = partnerSettlements(kickbackShares(statements)).map(
    (b): ExportedBeneficiary => ({
      beneficiary: b.beneficiary,
      kickback_total: formatMoney(b.total),
      projects: b.projects,
      breakdown: statements.flatMap((s) =>
        s.adjustments
          .filter(
            (a) =>
              a.type === "kickback" &&
              a.relation_target === b.beneficiary &&
              a.relation_target_cloud === b.beneficiary_cloud,
          )
          .map((a) => ({
            cloud: s.cloud,
            project_id: s.project_id,
            relation_id: a.relation_id,
            scope: a.scope,
            rate: formatRate(a.rate),
            base: formatMoney(a.base),
            amount: formatMoney(a.amount),
          })),
      ),
    }),
  );
  return { statements: exported, beneficiaries };
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
 * Compares the oracle's statements (`oracleStatements`) with an export's, figure by figure: each
 * statement's total, with adjustments its base, net and kickback totals and every adjustment line
 * (amount and base), its attributed tenants' totals; and each beneficiary's settlement and kickback
 * lines. A statement or beneficiary only one side has differs in every figure.
 */
export function compareStatements(
  expected: readonly Statement[],
  exported: { statements: readonly ExportedStatement[]; beneficiaries: readonly ExportedBeneficiary[] },
): StatementComparison {
  const oracle = asExported(expected);
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
  return { statements: statements.length, settlements: settlements.length, differences };
}

/** The statements of an export's `run.json`; a correction's (credit notes) is refused. */
export function readExportedStatements(text: string): ExportedStatement[] {
  const run = parsed(text, "run.json") as { statements?: ExportedStatement[]; credit_notes?: unknown };
  if (!Array.isArray(run.statements))
    throw new ValidationError(
      run.credit_notes === undefined
        ? "the export's run.json holds no statements"
        : "the export is a correction's (credit notes): --registry compares the statements of a regular run",
    );
  return run.statements;
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
