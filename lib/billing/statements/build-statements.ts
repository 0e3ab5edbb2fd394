import { compare } from "../../foundation/collections/compare.ts";
import { apportion, type Decimal, percentOf, sum, zero } from "../../foundation/money/decimal.ts";
import { RunWarnings } from "../metering/run-warnings.ts";
import { addDimensionUsage, type DimensionUsage } from "../pricing/plan-lines.ts";
import { type PricingModel, planKey } from "../pricing/pricing-model.ts";
import { type Adjustment, type AdjustmentType, adjustmentOrder, readAdjustments } from "./adjustment.ts";
import { checkStatement } from "./money-invariants.ts";
import { projectKey, type Registry, type RegistryProject, type RegistryRelation } from "./registry.ts";
import { planOnStatement, type StatementPlan } from "./statement-plan.ts";

/** The relation type that attributes a tenant's cost to its cluster-manager project (docs/engine.md#attribution). */
export const attributingRelationType = "infrastructure_tenant";

/** A rated total of one platform and resource type: what a scope covers and a line is apportioned over. */
export interface Bucket {
  platform: string;
  resource_type: string;
  amount: Decimal;
}

/** What one project's resources cost in the run, per bucket (rated lines summed). */
export interface ProjectCost {
  cloud: string;
  project_id: string;
  buckets: Bucket[];
  /** The usage of the dimensions some plan tiers (`ProjectCosts`), for the tier lines. */
  usage?: DimensionUsage[];
}

export interface AdjustmentLine {
  type: AdjustmentType;
  relation_type: string;
  /** External id of the relation's target: the beneficiary of a kickback. */
  relation_target: string;
  relation_target_cloud: string;
  relation_id: string;
  scope: string;
  description: string;
  rate: Decimal;
  base: Decimal;
  amount: Decimal;
  /** The line apportioned over the buckets its scope covers; the shares sum to `amount`. */
  shares: Bucket[];
}

/** An attributed tenant's cost on its cluster manager's statement. */
export interface RelatedCost {
  relation_type: string;
  relation_id: string;
  cloud: string;
  project_id: string;
  total: Decimal;
}

export interface Statement {
  cloud: string;
  project_id: string;
  registry_id: string | null;
  /** Own and attributed buckets with the plan's lines, before adjustments. */
  buckets: Bucket[];
  /** The plan's tier lines and minimums, when its plan put any on it (decision 467). */
  plan: StatementPlan | null;
  base_cost: Decimal;
  net_cost: Decimal;
  kickback_total: Decimal;
  total: Decimal;
  adjustments: AdjustmentLine[];
  related: RelatedCost[];
  /** Why the statement failed (an unreadable adjustments array); its amounts are then unadjusted. */
  error: string | null;
}

export interface StatementOptions {
  /** Relation types the adjustment walk follows (`SVC_ENGINE_ADJUSTMENT_RELATION_TYPES`). */
  relationTypes: readonly string[];
  /** Levels of the walk (`SVC_ENGINE_ADJUSTMENT_DEPTH`). */
  depth: number;
}

/** The model's plans, when the statements are built under them (docs/pricing-model.md#plans). */
export type PlanBook = Pick<PricingModel, "plans" | "planByProject">;

export interface BuildOptions extends StatementOptions {
  plans?: PlanBook;
}

/** A statement with nothing on it yet: what a project's costs are added to, and what a correction
 * compares with where a statement does not exist on one side. */
export function emptyStatement(cloud: string, projectId: string, registryId: string | null): Statement {
  return {
    cloud,
    project_id: projectId,
    registry_id: registryId,
    buckets: [],
    plan: null,
    base_cost: zero,
    net_cost: zero,
    kickback_total: zero,
    total: zero,
    adjustments: [],
    related: [],
    error: null,
  };
}

const bucketKey = (b: { platform: string; resource_type: string }) => `${b.platform}\u0000${b.resource_type}`;

/**
 * The statements of a run (pure): one per project that has costs, except that a tenant reached by an
 * `infrastructure_tenant` relation is shown on its cluster manager's statement only, under `related`
 * (its buckets join the manager's base), and one per project a plan with minimums names even when it
 * used nothing (unless its costs are attributed to another's); then each statement's plan lines (tiers,
 * then minimums) and its adjustments as "Application of adjustments" says (decision 461). Warnings are
 * counted into `warnings`. Statements come ordered by (cloud, project).
 * A statement whose money does not add up throws `MoneyInvariantError` (decision 468).
 */
export function buildStatements(
  costs: readonly ProjectCost[],
  registry: Registry,
  options: BuildOptions,
  warnings: RunWarnings,
): Statement[] {
  const statements = new Map<string, Statement>();
  const usageOf = new Map<Statement, DimensionUsage[]>();
  const statementOf = (cloud: string, projectId: string, registryId: string | null): Statement => {
    const key = projectKey(cloud, projectId);
    let s = statements.get(key);
    if (s === undefined) {
      s = emptyStatement(cloud, projectId, registryId);
      statements.set(key, s);
    }
    return s;
  };
  for (const cost of costs) {
    const project = registry.project(cost.cloud, cost.project_id);
    if (project === undefined) {
      warnings.add("project_not_registered");
      addCost(statementOf(cost.cloud, cost.project_id, null), cost, usageOf);
      continue;
    }
    const attribution = attributedTo(project, registry, warnings);
    if (attribution === null) {
      addCost(statementOf(cost.cloud, cost.project_id, project.id), cost, usageOf);
      continue;
    }
    const manager = statementOf(
      attribution.manager.cloud,
      attribution.manager.externalId,
      attribution.manager.id,
    );
    addCost(manager, cost, usageOf);
    manager.related.push({
      relation_type: attributingRelationType,
      relation_id: attribution.relation.id,
      cloud: cost.cloud,
      project_id: cost.project_id,
      total: sum(cost.buckets.map((b) => b.amount)),
    });
  }
  for (const plan of options.plans?.plans ?? []) {
    if (plan.minimums.length === 0) continue;
    for (const [cloud, ids] of plan.projects) {
      for (const id of ids) {
        if (statements.has(projectKey(cloud, id))) continue;
        const project = registry.project(cloud, id);
        // Its attribution was never counted (it has no costs): a throwaway tally keeps the warnings as they were.
        if (project !== undefined && attributedTo(project, registry, new RunWarnings()) !== null) continue;
        if (project === undefined) warnings.add("project_not_registered");
        statementOf(cloud, id, project?.id ?? null);
      }
    }
  }
  const out = [...statements.values()].sort(
    (a, b) => compare(a.cloud, b.cloud) || compare(a.project_id, b.project_id),
  );
  for (const statement of out) {
    statement.buckets.sort(
      (a, b) => compare(a.platform, b.platform) || compare(a.resource_type, b.resource_type),
    );
    statement.related.sort((a, b) => compare(a.cloud, b.cloud) || compare(a.project_id, b.project_id));
    const plan = options.plans?.planByProject.get(planKey(statement.cloud, statement.project_id));
    if (plan !== undefined) {
      const planned = planOnStatement(plan, usageOf.get(statement) ?? [], statement.buckets);
      statement.plan = planned.plan;
      statement.buckets = planned.buckets;
    }
    statement.base_cost = sum(statement.buckets.map((b) => b.amount));
    statement.net_cost = statement.base_cost;
    statement.total = statement.base_cost;
    if (statement.registry_id !== null) adjust(statement, statement.registry_id, registry, options, warnings);
    checkStatement(statement);
  }
  return out;
}

function addCost(statement: Statement, cost: ProjectCost, usageOf: Map<Statement, DimensionUsage[]>): void {
  for (const b of cost.buckets) {
    const held = statement.buckets.find((x) => bucketKey(x) === bucketKey(b));
    if (held) held.amount = held.amount.plus(b.amount);
    else statement.buckets.push({ ...b });
  }
  if (cost.usage === undefined || cost.usage.length === 0) return;
  const usage = usageOf.get(statement) ?? [];
  usageOf.set(statement, usage);
  for (const u of cost.usage) addDimensionUsage(usage, u);
}

/**
 * The (cloud, project) of the statement a project's costs are shown on: its cluster manager's when an
 * `infrastructure_tenant` relation attributes it, else its own. A correction assigns each line delta to
 * a credit note with it before the month's statements exist.
 */
export function statementProjectOf(
  registry: Registry,
  cloud: string,
  projectId: string,
  warnings: RunWarnings,
): { cloud: string; project_id: string } {
  const project = registry.project(cloud, projectId);
  const attribution = project === undefined ? null : attributedTo(project, registry, warnings);
  return attribution === null
    ? { cloud, project_id: projectId }
    : { cloud: attribution.manager.cloud, project_id: attribution.manager.externalId };
}

/**
 * The cluster manager a project's cost goes to: up its incoming `infrastructure_tenant` relations to a
 * project that has none (a manager may itself be a tenant of another). Null when nothing attributes it.
 * Two attributing relations into one project are ambiguous: the one with the lowest id wins and an
 * `attribution` warning is counted; a cycle (which the registry refuses to create) leaves the cost
 * where it is, with a warning.
 */
function attributedTo(
  project: RegistryProject,
  registry: Registry,
  warnings: RunWarnings,
): { manager: RegistryProject; relation: RegistryRelation } | null {
  let current = project;
  let first: RegistryRelation | null = null;
  const seen = new Set([project.id]);
  for (;;) {
    const incoming = registry.incoming(current.id).filter((r) => r.relationType === attributingRelationType);
    if (incoming.length === 0) break;
    if (incoming.length > 1) warnings.add("attribution_ambiguous");
    const relation = incoming[0] as RegistryRelation;
    const manager = registry.byId(relation.sourceId);
    if (manager === undefined) break;
    if (seen.has(manager.id)) {
      warnings.add("attribution_cycle");
      return null;
    }
    seen.add(manager.id);
    first ??= relation;
    current = manager;
  }
  return first === null ? null : { manager: current, relation: first };
}

interface Reached {
  relation: RegistryRelation;
  adjustments: Adjustment[];
}

/** Breadth-first over outgoing relations of the configured types, each relation once, `depth` levels. */
function walk(
  from: string,
  registry: Registry,
  options: StatementOptions,
): { reached: Reached[]; unreadable: RegistryRelation | null } {
  const visited = new Set<string>();
  const reached: Reached[] = [];
  let frontier = [from];
  for (let level = 0; level < options.depth && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const projectId of frontier) {
      for (const relation of registry.outgoing(projectId)) {
        if (!options.relationTypes.includes(relation.relationType) || visited.has(relation.id)) continue;
        visited.add(relation.id);
        next.push(relation.targetId);
        if (!Object.hasOwn(relation.metadata, "pricing_adjustments")) continue;
        const adjustments = readAdjustments(relation.metadata.pricing_adjustments);
        if (adjustments === null) return { reached, unreadable: relation };
        reached.push({ relation, adjustments });
      }
    }
    frontier = next;
  }
  return { reached, unreadable: null };
}

function covers(scope: string, bucket: Bucket): boolean {
  if (scope === "all") return true;
  const dot = scope.indexOf(".");
  if (dot === -1) return bucket.platform === scope;
  return bucket.platform === scope.slice(0, dot) && bucket.resource_type === scope.slice(dot + 1);
}

/**
 * Application of adjustments (docs/engine.md#adjustments): surcharges on the base (they add), discounts and project
 * discounts on the running net (they stack), kickbacks on the running net beside it; each line rounded
 * once and apportioned over the buckets its scope covers, the last bucket taking the remainder.
 */
function adjust(
  statement: Statement,
  registryId: string,
  registry: Registry,
  options: StatementOptions,
  warnings: RunWarnings,
): void {
  const { reached, unreadable } = walk(registryId, registry, options);
  if (unreadable !== null) {
    warnings.add("pricing_adjustments_unreadable");
    statement.error = `relation ${unreadable.id} holds pricing_adjustments that cannot be read`;
    return;
  }
  const planned: { reached: Reached; adjustment: Adjustment; position: number }[] = [];
  for (const r of reached) {
    r.adjustments.forEach((adjustment, position) => {
      planned.push({ reached: r, adjustment, position });
    });
  }
  planned.sort(
    (a, b) =>
      adjustmentOrder.indexOf(a.adjustment.type) - adjustmentOrder.indexOf(b.adjustment.type) ||
      compare(a.reached.relation.id, b.reached.relation.id) ||
      a.position - b.position,
  );
  const net = new Map(statement.buckets.map((b) => [bucketKey(b), b.amount]));
  for (const { reached: r, adjustment } of planned) {
    const target = registry.byId(r.relation.targetId);
    if (adjustment.type === "kickback" && target?.platform !== "partner") {
      warnings.add("adjustment_kickback_target_not_partner");
      continue;
    }
    const covered = statement.buckets.filter((b) => covers(adjustment.scope, b));
    if (covered.length === 0) continue;
    const weights = covered.map((b) =>
      adjustment.type === "surcharge" ? b.amount : (net.get(bucketKey(b)) ?? zero),
    );
    const base = sum(weights);
    const magnitude = percentOf(adjustment.rate, base);
    const amount =
      adjustment.type === "discount" || adjustment.type === "project_discount" ? magnitude.neg() : magnitude;
    const shares = apportion(amount, weights).map((share, i) => ({
      ...(covered[i] as Bucket),
      amount: share,
    }));
    if (adjustment.type !== "kickback") {
      for (const share of shares)
        net.set(bucketKey(share), (net.get(bucketKey(share)) ?? zero).plus(share.amount));
    }
    statement.adjustments.push({
      type: adjustment.type,
      relation_type: r.relation.relationType,
      relation_target: target?.externalId ?? "",
      relation_target_cloud: target?.cloud ?? "",
      relation_id: r.relation.id,
      scope: adjustment.scope,
      description: adjustment.description,
      rate: adjustment.rate,
      base,
      amount,
      shares,
    });
  }
  statement.net_cost = sum(net.values());
  statement.total = statement.net_cost;
  statement.kickback_total = sum(
    statement.adjustments.filter((l) => l.type === "kickback").map((l) => l.amount),
  );
}
