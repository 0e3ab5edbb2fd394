import { compare } from "../../../foundation/collections/compare.ts";
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
import { type OraclePrices, typeKey } from "./oracle-prices.ts";

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
  /** The same, exact: what a price must be multiplied by to give the line's exact amount. */
  exactQuantity: Exact;
  /** Cents: the exact amount rounded once, half away from zero. */
  amount: bigint;
  /** The exact amount lay on half a cent. */
  tie: boolean;
}

/** What the oracle bills one resource for the month. */
export interface OracleRating {
  lines: OracleLine[];
  /** Its type is not priced: nothing is billed for it. */
  unpricedType: boolean;
  /** It spent time in a state the model does not name, which bills nothing. */
  unpricedState: boolean;
}

function member(size: JsonObject, name: string): Exact | null {
  const value = size[name];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? exactOfNumber(value) : null;
}

/**
 * Rates one oracle resource (pure): each interval bills the dimensions its state names, each measured
 * over the interval (egress: the oracle's traffic of that very interval), summed per project and
 * dimension and priced once per sum. Lines with no usage are left out; lines come ordered by project,
 * then dimension. `platform` is the one the oracle's cloud runs.
 */
export function rateOracleResource(
  prices: OraclePrices,
  platform: string,
  resource: OracleResource,
  traffic: ReadonlyMap<string, OracleTraffic>,
): OracleRating {
  const rating: OracleRating = { lines: [], unpricedType: false, unpricedState: false };
  const pricing = prices.types.get(typeKey(platform, resource.resource_type));
  if (pricing === undefined) {
    rating.unpricedType = resource.intervals.length > 0;
    return rating;
  }
  const catalog = measures[resource.resource_type] ?? {};
  const sums = new Map<string, { project_id: string; dimension: string; usage: Exact }>();
  for (const interval of resource.intervals) {
    const billed = pricing.states.get(interval.state);
    if (billed === undefined) {
      rating.unpricedState = true;
      continue;
    }
    const ms = exactInteger(BigInt(Date.parse(interval.to) - Date.parse(interval.from)));
    for (const dimension of billed) {
      const measure = catalog[dimension];
      let usage: Exact | null = null;
      if (measure?.by === "hours") usage = ms;
      else if (measure?.by === "size") {
        const per = member(interval.size, measure.member);
        usage = per === null ? null : times(per, ms);
      } else if (measure?.by === "egress") {
        const sent = traffic.get(`${resource.resource_id} ${interval.from} ${interval.to}`);
        usage = sent === undefined ? null : exactOfNumber(sent.egress_bytes);
      }
      if (usage === null) continue;
      const key = `${interval.project_id}\u0000${dimension}`;
      const sum = sums.get(key) ?? { project_id: interval.project_id, dimension, usage: zeroExact };
      sum.usage = plus(sum.usage, usage);
      sums.set(key, sum);
    }
  }
  for (const { project_id, dimension, usage } of sums.values()) {
    const price = pricing.prices.get(dimension);
    if (usage.n === 0n || price === undefined) continue;
    const unit = catalog[dimension]?.by === "egress" ? bytesPerGiB : msPerHour;
    const exactQuantity = over(usage, unit);
    const amount = times(exactQuantity, price);
    rating.lines.push({
      project_id,
      dimension,
      quantity: scaledText(rounded(exactQuantity, 6), 6),
      exactQuantity,
      amount: rounded(amount, 2),
      tie: onTie(amount, 2),
    });
  }
  rating.lines.sort((a, b) => compare(a.project_id, b.project_id) || compare(a.dimension, b.dimension));
  return rating;
}
