import { compare } from "../../../foundation/collections/compare.ts";
import { exactCents, exactInteger, exactOf, onTie, over, plus, rounded, scaledText, times } from "./exact.ts";
import {
  applyOraclePlan,
  type OracleMinimumLine,
  type OraclePlan,
  type OracleTierLine,
  type OracleUsage,
  statementKey,
} from "./oracle-plans.ts";
import {
  attributing,
  type OracleAdjustmentRule,
  type OracleRegistry,
  readRules,
  walkFrom,
} from "./oracle-registry.ts";

/** A project's rated total on one platform and resource type: what a scope covers. */
export interface OracleBucket {
  platform: string;
  resource_type: string;
  /** Cents. */
  amount: bigint;
}

/** A share of an adjustment line on one bucket. */
export interface OracleShare extends OracleBucket {
  /** Its exact share lay on half a cent (the last bucket takes the remainder: never a tie). */
  tie: boolean;
}

export interface OracleAdjustment {
  type: OracleAdjustmentRule["type"];
  relation_type: string;
  relation_target: string;
  relation_target_cloud: string;
  relation_id: string;
  scope: string;
  /** Six places, as exported. */
  rate: string;
  base: bigint;
  amount: bigint;
  /** The rate applied to the base lay on half a cent. */
  tie: boolean;
  /** The walk's level the relation was reached at (1: the statement project's own relation). */
  level: number;
  shares: OracleShare[];
}

export interface OracleRelated {
  relation_type: string;
  relation_id: string;
  cloud: string;
  project_id: string;
  total: bigint;
}

/** One statement of the oracle's month (docs/engine.md#statements), amounts in cents. */
export interface OracleStatement {
  cloud: string;
  project_id: string;
  buckets: OracleBucket[];
  base: bigint;
  net: bigint;
  kickback: bigint;
  total: bigint;
  /** Its plan's tier lines and minimums (docs/pricing-model.md#plans), before the adjustments. */
  tiers: OracleTierLine[];
  minimums: OracleMinimumLine[];
  adjustments: OracleAdjustment[];
  related: OracleRelated[];
  /** A reached relation's adjustments could not be read: the statement stays unadjusted. */
  error: string | null;
}

/** What the walks of the month met: the cases a month of money edges must show (docs/scenarios.md). */
export interface WalkFindings {
  /** Kickbacks dropped because their target is not a partner, one per statement that reached one. */
  kickbacksDropped: number;
  /** The deepest level of a relation whose adjustment billed a line. */
  deepestLevel: number;
  /** Relations met again by a second way, counted once. */
  metAgain: number;
  /** Relations one level past the depth, which the walk leaves out. */
  beyond: number;
}

/** A project's rated lines summed per bucket, and per dimension for a plan's tiers. */
export interface OracleCost {
  cloud: string;
  project_id: string;
  buckets: OracleBucket[];
  usage?: OracleUsage[];
}

const order = ["surcharge", "discount", "project_discount", "kickback"] as const;
const bucketKey = (b: { platform: string; resource_type: string }) => `${b.platform}\u0000${b.resource_type}`;
const sumOf = (values: Iterable<bigint>) => {
  let total = 0n;
  for (const v of values) total += v;
  return total;
};

function covers(scope: string, bucket: OracleBucket): boolean {
  if (scope === "all") return true;
  const [platform, resourceType] = scope.split(".");
  return (
    bucket.platform === platform && (resourceType === undefined || bucket.resource_type === resourceType)
  );
}

/**
 * Splits a line (cents) over weights (cents) in proportion (docs/engine.md#adjustments, rule 5): every
 * weight but the last takes its exact share rounded half away from zero, the last the remainder; with
 * no weight at all the last takes the whole line.
 */
export function oracleApportion(
  line: bigint,
  weights: readonly bigint[],
): { amount: bigint; tie: boolean }[] {
  const total = sumOf(weights);
  const shares = weights.slice(0, -1).map((w) => {
    if (total === 0n) return { amount: 0n, tie: false };
    const exact = over(exactInteger(line * w), exactInteger(total));
    return { amount: rounded(exact, 0), tie: onTie(exact, 0) };
  });
  if (weights.length > 0) shares.push({ amount: line - sumOf(shares.map((s) => s.amount)), tie: false });
  return shares;
}

function emptyStatement(cloud: string, projectId: string): OracleStatement {
  return {
    cloud,
    project_id: projectId,
    buckets: [],
    base: 0n,
    net: 0n,
    kickback: 0n,
    total: 0n,
    tiers: [],
    minimums: [],
    adjustments: [],
    related: [],
    error: null,
  };
}

/** The adjustments of one registered statement, applied in order (docs/engine.md#adjustments). */
function adjust(
  statement: OracleStatement,
  projectId: string,
  registry: OracleRegistry,
  walk: { types: readonly string[]; depth: number },
  findings: WalkFindings,
): void {
  const found = walkFrom(registry, projectId, walk);
  findings.metAgain += found.metAgain;
  findings.beyond += found.beyond;
  if (found.unreadable !== null) {
    statement.error = `relation ${found.unreadable.id} holds pricing_adjustments that cannot be read`;
    return;
  }
  const planned = found.reached.flatMap(({ relation, level }) =>
    (readRules(relation.metadata.pricing_adjustments) ?? []).map((rule, position) => ({
      relation,
      level,
      rule,
      position,
    })),
  );
  planned.sort(
    (a, b) =>
      order.indexOf(a.rule.type) - order.indexOf(b.rule.type) ||
      compare(a.relation.id, b.relation.id) ||
      a.position - b.position,
  );
  const net = new Map(statement.buckets.map((b) => [bucketKey(b), b.amount]));
  for (const { relation, level, rule } of planned) {
    const target = registry.byId(relation.target_id);
    if (rule.type === "kickback" && target?.platform !== "partner") {
      findings.kickbacksDropped += 1;
      continue;
    }
    const covered = statement.buckets.filter((b) => covers(rule.scope, b));
    if (covered.length === 0) continue;
    const weights = covered.map((b) =>
      rule.type === "surcharge" ? b.amount : (net.get(bucketKey(b)) ?? 0n),
    );
    const base = sumOf(weights);
    const exact = times(exactOf(rule.rate), exactCents(base));
    const magnitude = rounded(exact, 2);
    const amount = rule.type === "discount" || rule.type === "project_discount" ? -magnitude : magnitude;
    const shares = oracleApportion(amount, weights).map((s, i) => ({
      ...(covered[i] as OracleBucket),
      ...s,
    }));
    if (rule.type !== "kickback")
      for (const s of shares) net.set(bucketKey(s), (net.get(bucketKey(s)) ?? 0n) + s.amount);
    findings.deepestLevel = Math.max(findings.deepestLevel, level);
    statement.adjustments.push({
      type: rule.type,
      relation_type: relation.relation_type,
      relation_target: target?.external_id ?? "",
      relation_target_cloud: target?.cloud ?? "",
      relation_id: relation.id,
      scope: rule.scope,
      rate: scaledText(rounded(exactOf(rule.rate), 6), 6),
      base,
      amount,
      tie: onTie(exact, 2),
      level,
      shares,
    });
  }
  statement.net = sumOf(net.values());
  statement.total = statement.net;
  statement.kickback = sumOf(statement.adjustments.filter((a) => a.type === "kickback").map((a) => a.amount));
}

/** Adds usage into a statement's, summed per dimension. */
function addUsage(into: OracleUsage[], usage: readonly OracleUsage[]) {
  for (const u of usage) {
    const held = into.find(
      (x) => x.platform === u.platform && x.resource_type === u.resource_type && x.dimension === u.dimension,
    );
    if (held === undefined) into.push({ ...u });
    else {
      held.usage = plus(held.usage, u.usage);
      held.priced = plus(held.priced, u.priced);
    }
  }
}

/**
 * The statements of the oracle's month (pure; docs/engine.md#statements, #attribution, #adjustments,
 * docs/pricing-model.md#plans): one per project with a rated line, except that a tenant an
 * `infrastructure_tenant` relation reaches is shown on its cluster manager's statement only, under
 * `related`; one per project a plan with a minimum names, used or not; then each statement's plan
 * lines, and each registered statement's adjustments. Ordered by (cloud, project); the walks' findings
 * are counted into `findings`.
 */
export function oracleStatements(
  costs: readonly OracleCost[],
  registry: OracleRegistry,
  walk: { types: readonly string[]; depth: number },
  findings: WalkFindings,
  plans: readonly OraclePlan[] = [],
): OracleStatement[] {
  type Held = { statement: OracleStatement; registryId: string | null; usage: OracleUsage[] };
  const statements = new Map<string, Held>();
  const statementOf = (cloud: string, projectId: string, registryId: string | null) => {
    const key = statementKey(cloud, projectId);
    const held = statements.get(key) ?? {
      statement: emptyStatement(cloud, projectId),
      registryId,
      usage: [],
    };
    statements.set(key, held);
    return held;
  };
  const addBuckets = (s: OracleStatement, buckets: readonly OracleBucket[]) => {
    for (const b of buckets) {
      const held = s.buckets.find((x) => bucketKey(x) === bucketKey(b));
      if (held === undefined) s.buckets.push({ ...b });
      else held.amount += b.amount;
    }
  };
  for (const cost of costs) {
    const project = registry.project(cost.cloud, cost.project_id);
    const attribution = project === undefined ? null : registry.managerOf(project);
    if (attribution === null) {
      const held = statementOf(cost.cloud, cost.project_id, project?.id ?? null);
      addBuckets(held.statement, cost.buckets);
      addUsage(held.usage, cost.usage ?? []);
      continue;
    }
    const { manager, relation } = attribution;
    const held = statementOf(manager.cloud, manager.external_id, manager.id);
    addBuckets(held.statement, cost.buckets);
    addUsage(held.usage, cost.usage ?? []);
    held.statement.related.push({
      relation_type: attributing,
      relation_id: relation.id,
      cloud: cost.cloud,
      project_id: cost.project_id,
      total: sumOf(cost.buckets.map((b) => b.amount)),
    });
  }
  const planOf = new Map<string, OraclePlan>();
  for (const plan of plans)
    for (const key of plan.statements) {
      planOf.set(key, plan);
      const [cloud = "", projectId = ""] = key.split("\u0000");
      const project = registry.project(cloud, projectId);
      // A tenant billed on its manager's statement has none of its own to hold a minimum.
      if (plan.minimums.length > 0 && (project === undefined || registry.managerOf(project) === null))
        statementOf(cloud, projectId, project?.id ?? null);
    }
  const out = [...statements.values()].sort(
    (a, b) =>
      compare(a.statement.cloud, b.statement.cloud) ||
      compare(a.statement.project_id, b.statement.project_id),
  );
  const byBucket = (a: OracleBucket, b: OracleBucket) =>
    compare(a.platform, b.platform) || compare(a.resource_type, b.resource_type);
  for (const { statement, registryId, usage } of out) {
    const plan = planOf.get(statementKey(statement.cloud, statement.project_id));
    if (plan !== undefined) Object.assign(statement, applyOraclePlan(plan, usage, statement.buckets));
    statement.buckets.sort(byBucket);
    statement.related.sort((a, b) => compare(a.cloud, b.cloud) || compare(a.project_id, b.project_id));
    statement.base = sumOf(statement.buckets.map((b) => b.amount));
    statement.net = statement.base;
    statement.total = statement.base;
    if (registryId !== null) adjust(statement, registryId, registry, walk, findings);
  }
  return out.map((s) => s.statement);
}

/** One beneficiary's settlement: its kickback lines, in statement order. */
export interface OracleSettlement {
  beneficiary_cloud: string;
  beneficiary: string;
  total: bigint;
  /** Statements that owe it a kickback line. */
  projects: number;
  lines: { cloud: string; project_id: string; line: OracleAdjustment }[];
}

/** The partner settlements of the oracle's statements, in the order beneficiaries first appear. */
export function oracleSettlements(statements: readonly OracleStatement[]): OracleSettlement[] {
  const settlements = new Map<string, OracleSettlement>();
  for (const s of statements)
    for (const line of s.adjustments) {
      if (line.type !== "kickback") continue;
      const key = `${line.relation_target_cloud}\u0000${line.relation_target}`;
      const held = settlements.get(key) ?? {
        beneficiary_cloud: line.relation_target_cloud,
        beneficiary: line.relation_target,
        total: 0n,
        projects: 0,
        lines: [],
      };
      held.total += line.amount;
      if (!held.lines.some((l) => l.cloud === s.cloud && l.project_id === s.project_id)) held.projects += 1;
      held.lines.push({ cloud: s.cloud, project_id: s.project_id, line });
      settlements.set(key, held);
    }
  return [...settlements.values()];
}
