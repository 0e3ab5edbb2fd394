import { compare } from "../../../foundation/collections/compare.ts";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { OracleResource, OracleTraffic } from "../oracle.ts";
import {
  type Exact,
  exactInteger,
  exactOfNumber,
  onTie,
  over,
  plus,
  rounded,
  scaledText,
  times,
  zeroExact,
} from "./exact.ts";
import {
  type OraclePrices,
  type OracleTypePrices,
  priceAt,
  pricedValue,
  statesOf,
  typeKey,
} from "./oracle-prices.ts";

/**
 * How the oracle measures each dimension (the spec's dimensions, docs/pricing-model.md#dimensions):
 * a size member times the hours, the hours alone, or the bytes the instance sent in GiB. Stated here on
 * its own, not read from the engine's catalog (decision 454).
 */
type Measure = { by: "size"; member: string } | { by: "hours" } | { by: "egress" };

const size = (member: string): Measure => ({ by: "size", member });
const hours: Measure = { by: "hours" };
const storage = { size_gb: size("size_gb") };

const measures: Readonly<Record<string, Readonly<Record<string, Measure>>>> = {
  instance: {
    vcpus: size("vcpus"),
    ram_gb: size("ram_gb"),
    disk_gb: size("disk_gb"),
    egress_gb: { by: "egress" },
    hours,
  },
  volume: storage,
  volume_snapshot: storage,
  volume_backup: storage,
  image: storage,
  floating_ip: { hours },
  loadbalancer: { hours, listeners: size("listeners"), pools: size("pools") },
};

const msPerHour = exactInteger(3_600_000n);
const bytesPerGiB = exactInteger(2n ** 30n);

/** One line of the oracle's bill: a resource's use of one dimension while one project owned it. */
export interface OracleLine {
  project_id: string;
  dimension: string;
  /** In the price's unit, six places. */
  quantity: string;
  /** Cents: the exact amount rounded once, half away from zero. */
  amount: bigint;
  /** The exact amount lay on half a cent. */
  tie: boolean;
  /** Σ usage (unit-milliseconds, or bytes), and Σ usage × the price in effect: what tiers count. */
  usage: Exact;
  priced: Exact;
  /** The usage of one unit of the price. */
  unit: Exact;
}

/** What the oracle bills one resource for the month. */
export interface OracleRating {
  lines: OracleLine[];
  /** Its type is not priced: nothing is billed for it. */
  unpricedType: boolean;
  /** It spent time in a state the model does not name, which bills nothing. */
  unpricedState: boolean;
  /** Its intervals priced by an attribute value's prices, not the type's own. */
  byValue: number;
  /** Of those, intervals whose value events carry under another name (a volume type's id). */
  named: number;
  /** Its intervals that a price change cut in two or more. */
  split: number;
}

function member(size: JsonObject, name: string): Exact | null {
  const value = size[name];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? exactOfNumber(value) : null;
}

/** Parts of [from, to) cut at each change strictly inside it. */
function parts(from: number, to: number, changes: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  let start = from;
  for (const at of changes)
    if (at > start && at < to) {
      out.push([start, at]);
      start = at;
    }
  out.push([start, to]);
  return out;
}

interface Sum {
  project_id: string;
  dimension: string;
  usage: Exact;
  priced: Exact;
}

/**
 * One dimension of one interval: its usage and its price over each part a price change cut it into
 * (egress, read for the whole interval, cannot be cut: its price must be one over the interval).
 */
function measured(
  pricing: OracleTypePrices,
  value: string | null,
  dimension: string,
  measure: Measure | undefined,
  interval: { size: JsonObject; spans: [number, number][]; egress: number | undefined },
): { usage: Exact; priced: Exact } | null {
  let usage = zeroExact;
  let priced = zeroExact;
  if (measure?.by === "egress") {
    if (interval.egress === undefined) return null;
    const prices = interval.spans.map(([from]) => priceAt(pricing, value, dimension, from));
    const [price] = prices;
    if (price === undefined) return null;
    if (prices.some((p) => p === undefined || p.n * price.d !== price.n * p.d))
      throw new ValidationError(
        `the oracle reads egress per interval and cannot cut it at a price change of ${dimension}: keep its price across the change (decision 297)`,
      );
    usage = exactOfNumber(interval.egress);
    return { usage, priced: times(usage, price) };
  }
  const per = measure?.by === "size" ? member(interval.size, measure.member) : exactInteger(1n);
  if (per === null || measure === undefined) return null;
  for (const [from, to] of interval.spans) {
    const price = priceAt(pricing, value, dimension, from);
    if (price === undefined) return null;
    const part = times(per, exactInteger(BigInt(to - from)));
    usage = plus(usage, part);
    priced = plus(priced, times(part, price));
  }
  return { usage, priced };
}

/**
 * Rates one oracle resource (pure): each interval is cut at the price changes inside it, priced by the
 * value of its type's attribute member (named through `names`; the type's own prices when the value
 * has none) in effect at each part's start, and bills the dimensions its state names, each measured
 * over the part (egress: the oracle's traffic of the whole interval). Usage and `usage × price` are
 * summed exactly per project and dimension and divided and rounded once per sum. Lines with no usage
 * are left out; lines come ordered by project, then dimension. `platform` is the one the oracle's
 * cloud runs.
 */
export function rateOracleResource(
  prices: OraclePrices,
  platform: string,
  resource: OracleResource,
  traffic: ReadonlyMap<string, OracleTraffic>,
): OracleRating {
  const rating: OracleRating = {
    lines: [],
    unpricedType: false,
    unpricedState: false,
    byValue: 0,
    named: 0,
    split: 0,
  };
  const pricing = prices.types.get(typeKey(platform, resource.resource_type));
  if (pricing === undefined) {
    rating.unpricedType = resource.intervals.length > 0;
    return rating;
  }
  const catalog = measures[resource.resource_type] ?? {};
  const sums = new Map<string, Sum>();
  for (const interval of resource.intervals) {
    const value = pricedValue(pricing, interval.size);
    const billed = statesOf(pricing, value).get(interval.state);
    if (billed === undefined) {
      rating.unpricedState = true;
      continue;
    }
    const spans = parts(Date.parse(interval.from), Date.parse(interval.to), prices.changes);
    if (value !== null) rating.byValue += 1;
    if (value !== null && pricing.member !== null && interval.size[pricing.member] !== value)
      rating.named += 1;
    if (spans.length > 1) rating.split += 1;
    const egress = traffic.get(`${resource.resource_id} ${interval.from} ${interval.to}`)?.egress_bytes;
    for (const dimension of billed) {
      const got = measured(pricing, value, dimension, catalog[dimension], {
        size: interval.size,
        spans,
        egress,
      });
      if (got === null) continue;
      const key = `${interval.project_id}\u0000${dimension}`;
      const sum = sums.get(key) ?? {
        project_id: interval.project_id,
        dimension,
        usage: zeroExact,
        priced: zeroExact,
      };
      sum.usage = plus(sum.usage, got.usage);
      sum.priced = plus(sum.priced, got.priced);
      sums.set(key, sum);
    }
  }
  for (const { project_id, dimension, usage, priced } of sums.values()) {
    if (usage.n === 0n) continue;
    const unit = catalog[dimension]?.by === "egress" ? bytesPerGiB : msPerHour;
    const amount = over(priced, unit);
    rating.lines.push({
      project_id,
      dimension,
      quantity: scaledText(rounded(over(usage, unit), 6), 6),
      amount: rounded(amount, 2),
      tie: onTie(amount, 2),
      usage,
      priced,
      unit,
    });
  }
  rating.lines.sort((a, b) => compare(a.project_id, b.project_id) || compare(a.dimension, b.dimension));
  return rating;
}
