import { platformA } from "../../events/event.ts";
import type { Oracle, OracleTraffic } from "../oracle.ts";
import type { OracleUsage } from "./oracle-plans.ts";
import type { OraclePrices } from "./oracle-prices.ts";
import { type OracleRating, rateOracleResource } from "./oracle-rating.ts";
import { OracleRegistry, type OracleRegistryInput } from "./oracle-registry.ts";
import {
  type OracleCost,
  type OracleSettlement,
  type OracleStatement,
  oracleSettlements,
  oracleStatements,
  type WalkFindings,
} from "./oracle-statements.ts";

/** What pricing the oracle's month met: the cases a month of money edges must show (docs/scenarios.md). */
export interface BillFindings extends WalkFindings {
  /** Resources of a type the model does not price. */
  unpricedTypes: number;
  /** Resources that spent time in a state the model does not name. */
  unpricedStates: number;
  /** Rated lines whose exact amount lay on half a cent. */
  lineTies: number;
  /** Adjustment lines whose rate on their base lay on half a cent. */
  adjustmentTies: number;
  /** Shares of an adjustment line whose exact share lay on half a cent. */
  shareTies: number;
  /** Intervals priced by an attribute value's prices; of those, named through the model's `names`. */
  pricedByValue: number;
  namedValues: number;
  /** Rated lines of a flavor priced whole, by the hour. */
  wholeFlavorLines: number;
  /** Intervals a price change cut. */
  splitIntervals: number;
  /** Tier lines, and those whose quantity went past its first tier's bound. */
  tierLines: number;
  tiersCrossed: number;
  /** Minimums met on statements, and those that billed a top-up. */
  minimums: number;
  topUps: number;
}

/**
 * The oracle's own bill of its month (decision 454): every resource rated from the oracle's intervals
 * and traffic, and with a registry the statements and partner settlements, priced by the oracle's own
 * reading of the pricing model and of the rules of docs/engine.md. It imports neither the engine nor
 * `lib/billing/pricing` nor `lib/billing/statements`, so `simulator compare` is a second computation of
 * the bill and not the first one read twice.
 */
export interface OracleBill {
  currency: string;
  /** Per resource, `<type>/<id>`, in the oracle's order. */
  resources: Map<string, OracleRating>;
  /** With a registry. */
  statements: OracleStatement[] | null;
  settlements: OracleSettlement[] | null;
  findings: BillFindings;
}

/** The oracle's rating of its month, before any registry: every resource rated, costs per project. */
export interface OracleRated {
  currency: string;
  period: { from: string; to: string };
  resources: Map<string, OracleRating>;
  costs: (OracleCost & { usage: OracleUsage[] })[];
  findings: BillFindings;
}

export function oracleBill(oracle: Oracle, prices: OraclePrices, registry?: OracleRegistryInput): OracleBill {
  const rated = rateOracleMonth(oracle, prices);
  if (registry === undefined)
    return {
      currency: rated.currency,
      resources: rated.resources,
      statements: null,
      settlements: null,
      findings: rated.findings,
    };
  return stateOracleMonth(rated, prices, registry);
}

/** A month that met none of the cases: what the oracle counts from. */
export function noFindings(): BillFindings {
  return {
    unpricedTypes: 0,
    unpricedStates: 0,
    lineTies: 0,
    adjustmentTies: 0,
    shareTies: 0,
    pricedByValue: 0,
    namedValues: 0,
    wholeFlavorLines: 0,
    splitIntervals: 0,
    tierLines: 0,
    tiersCrossed: 0,
    minimums: 0,
    topUps: 0,
    kickbacksDropped: 0,
    deepestLevel: 0,
    metAgain: 0,
    beyond: 0,
  };
}

/** Every resource of the month rated and its lines summed per project and bucket. */
export function rateOracleMonth(oracle: Oracle, prices: OraclePrices): OracleRated {
  const traffic = new Map<string, OracleTraffic>();
  for (const t of oracle.traffic) traffic.set(`${t.resource_id} ${t.from} ${t.to}`, t);
  const findings = noFindings();
  const resources = new Map<string, OracleRating>();
  const costs = new Map<string, OracleCost & { usage: OracleUsage[] }>();
  for (const resource of oracle.resources) {
    const rating = rateOracleResource(prices, platformA, resource, traffic);
    resources.set(`${resource.resource_type}/${resource.resource_id}`, rating);
    if (rating.unpricedType) findings.unpricedTypes += 1;
    if (rating.unpricedState) findings.unpricedStates += 1;
    findings.pricedByValue += rating.byValue;
    findings.namedValues += rating.named;
    findings.splitIntervals += rating.split;
    for (const line of rating.lines) {
      if (line.tie) findings.lineTies += 1;
      if (resource.resource_type === "instance" && line.dimension === "hours") findings.wholeFlavorLines += 1;
      const cost = costs.get(line.project_id) ?? {
        cloud: oracle.cloud,
        project_id: line.project_id,
        buckets: [],
        usage: [],
      };
      costs.set(line.project_id, cost);
      const bucket = cost.buckets.find((b) => b.resource_type === resource.resource_type);
      if (bucket === undefined)
        cost.buckets.push({
          platform: platformA,
          resource_type: resource.resource_type,
          amount: line.amount,
        });
      else bucket.amount += line.amount;
      const { usage, priced, unit } = line;
      cost.usage.push({
        platform: platformA,
        resource_type: resource.resource_type,
        dimension: line.dimension,
        usage,
        priced,
        unit,
      });
    }
  }
  return {
    currency: prices.currency,
    period: { from: oracle.period_from, to: oracle.period_to },
    resources,
    costs: [...costs.values()],
    findings,
  };
}

/**
 * A rated month stated against a registry: statements and settlements. The rating is left as it was
 * (its findings are copied, its costs only read), so one rating may be stated against several registries (money-edges draws
 * its roles so, decision 548).
 */
export function stateOracleMonth(
  rated: OracleRated,
  prices: OraclePrices,
  registry: OracleRegistryInput,
): OracleBill {
  const findings = { ...rated.findings };
  const statements = oracleStatements(
    rated.costs,
    new OracleRegistry(registry, rated.period),
    { types: registry.adjustment_relation_types, depth: registry.adjustment_depth },
    findings,
    prices.plans,
  );
  for (const s of statements) {
    findings.tierLines += s.tiers.length;
    findings.tiersCrossed += s.tiers.filter((t) => t.reached > 0).length;
    findings.minimums += s.minimums.length;
    findings.topUps += s.minimums.filter((m) => m.amount > 0n).length;
    for (const a of s.adjustments) {
      if (a.tie) findings.adjustmentTies += 1;
      findings.shareTies += a.shares.filter((share) => share.tie).length;
    }
  }
  return {
    currency: prices.currency,
    resources: rated.resources,
    statements,
    settlements: oracleSettlements(statements),
    findings,
  };
}
