import Big from "big.js";
import type { Decimal } from "../../foundation/money/decimal.ts";

/**
 * What each resource type is billed by, and how a dimension's quantity is measured (docs/engine.md,
 * Dimensions). A dimension is one of:
 * - `size`: a numeric member of the interval's size, times the hours it lasted (vcpu-hours, GiB-hours);
 * - `hours`: the hours the interval lasted (a floating IP, a load balancer);
 * - `counter`: bytes read from a cumulative counter over the interval, in GiB.
 * Each has one denominator that turns its exact numerator (unit-milliseconds, or bytes) into the
 * unit its price is quoted in, so that a line is `numerator × price / denominator`, rounded once.
 */
type DimensionSource = { kind: "size"; member: string } | { kind: "hours" } | { kind: "counter" };

interface Dimension {
  source: DimensionSource;
  /** The unit of a quantity, for people: `vcpu-hours`, `GiB`. */
  unit: string;
}

const msPerHour: Decimal = new Big(3_600_000);
const bytesPerGiB: Decimal = new Big(2 ** 30);

export function denominatorOf(dimension: Dimension): Decimal {
  return dimension.source.kind === "counter" ? bytesPerGiB : msPerHour;
}

const sizeHours = (member: string, unit: string): Dimension => ({ source: { kind: "size", member }, unit });

export const dimensionCatalog: Readonly<Record<string, Readonly<Record<string, Dimension>>>> = {
  instance: {
    vcpus: sizeHours("vcpus", "vcpu-hours"),
    ram_gb: sizeHours("ram_gb", "GiB-hours"),
    disk_gb: sizeHours("disk_gb", "GiB-hours"),
    egress_gb: { source: { kind: "counter" }, unit: "GiB" },
    // Hours alone: what a flavor priced whole is billed by (docs/pricing-model.md#prices-by-attribute).
    hours: { source: { kind: "hours" }, unit: "hours" },
  },
  volume: { size_gb: sizeHours("size_gb", "GiB-hours") },
  volume_snapshot: { size_gb: sizeHours("size_gb", "GiB-hours") },
  volume_backup: { size_gb: sizeHours("size_gb", "GiB-hours") },
  image: { size_gb: sizeHours("size_gb", "GiB-hours") },
  floating_ip: { hours: { source: { kind: "hours" }, unit: "hours" } },
  loadbalancer: {
    hours: { source: { kind: "hours" }, unit: "hours" },
    listeners: sizeHours("listeners", "listener-hours"),
    pools: sizeHours("pools", "pool-hours"),
  },
};

export function dimensionOf(resourceType: string, dimension: string): Dimension | undefined {
  const dims = dimensionCatalog[resourceType];
  return dims && Object.hasOwn(dims, dimension) ? dims[dimension] : undefined;
}

/**
 * The size members a price may be chosen by, per resource type (docs/pricing-model.md#prices-by-attribute):
 * the text members our events carry that say what kind of resource it is. A model naming any other is
 * refused at load, so a misspelt member cannot silently price nothing.
 */
export const attributeCatalog: Readonly<Record<string, readonly string[]>> = {
  instance: ["flavor"],
  volume: ["type"],
  image: ["disk_format"],
  loadbalancer: ["flavor"],
};
