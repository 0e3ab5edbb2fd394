import type { YamlNode } from "../../../foundation/yaml/failsafe-yaml.ts";
import { type Exact, minus, onTie, over, plus, rounded, scaledText, times, zeroExact } from "./exact.ts";
import { decimalAt, fail, listAt, mapAt, textAt } from "./oracle-yaml.ts";

/**
 * Plans as the oracle reads and applies them (docs/pricing-model.md#plans), on its own (decision 454):
 * a statement's tiered dimensions priced by their schedule in exact fractions, then its minimums, types
 * before platforms, each topping up what its scope's buckets fall short of.
 */

export interface OracleTier {
  /** The tier's bound in the dimension's unit (inclusive), null for the last. */
  upTo: Exact | null;
  price: Exact;
}

export interface OracleSchedule {
  platform: string;
  resource_type: string;
  dimension: string;
  mode: "graduated" | "volume";
  tiers: OracleTier[];
}

export interface OracleMinimum {
  scope: string;
  platform: string;
  /** Null: the whole platform. */
  resource_type: string | null;
  /** Cents. */
  amount: bigint;
}

export interface OraclePlan {
  name: string;
  /** The statements it holds for, `<cloud>\0<project external id>`. */
  statements: ReadonlySet<string>;
  tiered: OracleSchedule[];
  minimums: OracleMinimum[];
}

export const statementKey = (cloud: string, projectId: string) => `${cloud}\u0000${projectId}`;

function readSchedule(node: YamlNode, at: string): OracleSchedule {
  const doc = mapAt(node, at);
  const [platform = "", resourceType = "", dimension = ""] = textAt(doc.dimension, `${at}.dimension`).split(
    ".",
  );
  const mode = textAt(doc.mode, `${at}.mode`);
  if (mode !== "graduated" && mode !== "volume") fail(`${at}.mode`, "is neither graduated nor volume");
  const tiers = listAt(doc.tiers, `${at}.tiers`).map((tier, i) => {
    const t = mapAt(tier, `${at}.tiers.${i}`);
    return {
      upTo: t.up_to === undefined ? null : decimalAt(t.up_to, `${at}.tiers.${i}.up_to`),
      price: decimalAt(t.price, `${at}.tiers.${i}.price`),
    };
  });
  return { platform, resource_type: resourceType, dimension, mode, tiers };
}

function readMinimum(node: YamlNode, at: string): OracleMinimum {
  const doc = mapAt(node, at);
  const scope = textAt(doc.scope, `${at}.scope`);
  const [platform = "", resourceType] = scope.split(".");
  return {
    scope,
    platform,
    resource_type: resourceType ?? null,
    amount: rounded(decimalAt(doc.amount, `${at}.amount`), 2),
  };
}

/** The model's `plans` (absent: none). */
export function readOraclePlans(node: YamlNode | undefined): OraclePlan[] {
  if (node === undefined) return [];
  return Object.entries(mapAt(node, "plans")).map(([name, terms]) => {
    const at = `plans.${name}`;
    const doc = mapAt(terms, at);
    const statements = new Set<string>();
    for (const [cloud, ids] of Object.entries(mapAt(doc.projects, `${at}.projects`)))
      for (const [i, id] of listAt(ids, `${at}.projects.${cloud}`).entries())
        statements.add(statementKey(cloud, textAt(id, `${at}.projects.${cloud}.${i}`)));
    return {
      name,
      statements,
      tiered:
        doc.tiered === undefined
          ? []
          : listAt(doc.tiered, `${at}.tiered`).map((s, i) => readSchedule(s, `${at}.tiered.${i}`)),
      minimums:
        doc.minimums === undefined
          ? []
          : listAt(doc.minimums, `${at}.minimums`).map((m, i) => readMinimum(m, `${at}.minimums.${i}`)),
    };
  });
}

/** A statement's usage of one dimension, summed over its rated lines (its attributed tenants' too). */
export interface OracleUsage {
  platform: string;
  resource_type: string;
  dimension: string;
  /** Σ usage (unit-milliseconds, or bytes). */
  usage: Exact;
  /** Σ usage × the list price it was rated at. */
  priced: Exact;
  /** The usage of one unit of the price (an hour in ms, a GiB in bytes). */
  unit: Exact;
}

export interface OracleTierLine {
  platform: string;
  resource_type: string;
  dimension: string;
  mode: OracleSchedule["mode"];
  /** The statement's quantity, six places. */
  quantity: string;
  /** The index of the tier the quantity ends in (0: it stayed in the first). */
  reached: number;
  /** Cents: the tiers' price less the list price, exact, rounded once. */
  amount: bigint;
  tie: boolean;
}

export interface OracleMinimumLine {
  scope: string;
  /** Cents, each. */
  minimum: bigint;
  usage: bigint;
  /** The top-up, `max(0, minimum − usage)`. */
  amount: bigint;
}

/** The tier a quantity ends in: the first whose bound it does not pass. */
function reachedTier(tiers: readonly OracleTier[], usage: Exact, unit: Exact): number {
  const index = tiers.findIndex((t) => t.upTo === null || !greater(usage, times(t.upTo, unit)));
  return index < 0 ? tiers.length - 1 : index;
}

const greater = (a: Exact, b: Exact) => a.n * b.d > b.n * a.d;

/** `Σ usage × price` of a quantity under a schedule, exact. */
export function tieredPrice(
  schedule: Pick<OracleSchedule, "mode" | "tiers">,
  usage: Exact,
  unit: Exact,
): Exact {
  const reached = reachedTier(schedule.tiers, usage, unit);
  if (schedule.mode === "volume") return times(usage, (schedule.tiers[reached] as OracleTier).price);
  let priced = zeroExact;
  let below = zeroExact;
  for (const tier of schedule.tiers.slice(0, reached + 1)) {
    const bound = tier.upTo === null ? usage : times(tier.upTo, unit);
    const top = greater(usage, bound) ? bound : usage;
    priced = plus(priced, times(minus(top, below), tier.price));
    below = top;
  }
  return priced;
}

/** A bucket of a statement (cents), as the plan adds to it. */
interface Bucket {
  platform: string;
  resource_type: string;
  amount: bigint;
}

/** The bucket a platform's top-up is billed in: no type's usage (docs/pricing-model.md#minimum-commitments). */
export const commitmentType = "commitment";

/**
 * A plan's lines on one statement, added to its buckets in place: a tier line per tiered dimension the
 * statement used, in its dimension's bucket; then the minimums of a type, then of a platform, whose
 * usage counts the types' top-ups; a platform's top-up in its `commitment` bucket.
 */
export function applyOraclePlan(
  plan: OraclePlan,
  usage: readonly OracleUsage[],
  buckets: Bucket[],
): { tiers: OracleTierLine[]; minimums: OracleMinimumLine[] } {
  const add = (platform: string, resourceType: string, amount: bigint) => {
    const held = buckets.find((b) => b.platform === platform && b.resource_type === resourceType);
    if (held === undefined) buckets.push({ platform, resource_type: resourceType, amount });
    else held.amount += amount;
  };
  const tiers: OracleTierLine[] = [];
  for (const s of plan.tiered) {
    const used = usage.find(
      (u) => u.platform === s.platform && u.resource_type === s.resource_type && u.dimension === s.dimension,
    );
    if (used === undefined || used.usage.n === 0n) continue;
    const difference = over(minus(tieredPrice(s, used.usage, used.unit), used.priced), used.unit);
    const line: OracleTierLine = {
      platform: s.platform,
      resource_type: s.resource_type,
      dimension: s.dimension,
      mode: s.mode,
      quantity: scaledText(rounded(over(used.usage, used.unit), 6), 6),
      reached: reachedTier(s.tiers, used.usage, used.unit),
      amount: rounded(difference, 2),
      tie: onTie(difference, 2),
    };
    tiers.push(line);
    add(s.platform, s.resource_type, line.amount);
  }
  const minimums: OracleMinimumLine[] = [];
  const ordered = [
    ...plan.minimums.filter((m) => m.resource_type !== null),
    ...plan.minimums.filter((m) => m.resource_type === null),
  ];
  for (const m of ordered) {
    let spent = 0n;
    for (const b of buckets)
      if (b.platform === m.platform && (m.resource_type === null || b.resource_type === m.resource_type))
        spent += b.amount;
    const amount = m.amount > spent ? m.amount - spent : 0n;
    minimums.push({ scope: m.scope, minimum: m.amount, usage: spent, amount });
    if (amount > 0n) add(m.platform, m.resource_type ?? commitmentType, amount);
  }
  return { tiers, minimums };
}
