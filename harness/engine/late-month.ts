import fc from "fast-check";
import type { StatementFigures } from "../../lib/billing/corrections/credit-note.ts";
import type { LineDelta } from "../../lib/billing/corrections/line-delta.ts";
import { StandingLines } from "../../lib/billing/corrections/standing-lines.ts";
import { correctMonth } from "../../lib/billing/engine/correct-month.ts";
import { type MonthInput, type PriceOptions, priceMonth } from "../../lib/billing/engine/price-month.ts";
import type { RatedResource } from "../../lib/billing/engine/rate-month.ts";
import type { HistoryEvent } from "../../lib/billing/history/event-order.ts";
import type { MonthEvent, ResourceKey } from "../../lib/billing/metering/meter-resource.ts";
import type { PricingModel } from "../../lib/billing/pricing/pricing-model.ts";
import { readPricingModel } from "../../lib/billing/pricing/pricing-model.ts";
import type { Statement } from "../../lib/billing/statements/build-statements.ts";
import type { RegistryProject, RegistryRelation } from "../../lib/billing/statements/registry.ts";
import { consume } from "../../lib/foundation/async/consume.ts";
import { formatMoney, formatQuantity, formatRate } from "../../lib/foundation/money/decimal.ts";

/**
 * Months with late events for the correction tests, run through the pure pipelines with no database
 * at all (decision 451): random instances and volumes whose every event may arrive late, a run over the
 * events that came in time, a run over all of them, and a correction of the first by the second.
 */

export interface RegistryData {
  projects: RegistryProject[];
  relations: RegistryRelation[];
}

export interface LateEvent extends HistoryEvent {
  late: boolean;
}
export interface Resource {
  key: ResourceKey;
  events: LateEvent[];
}

/** The value an arbitrary generates. */
export type Shape<A> = A extends fc.Arbitrary<infer T> ? T : never;

const minute = 60_000;
const at = (offsetMinutes: number) =>
  new Date(Date.parse("2026-09-25T00:00:00.000Z") + offsetMinutes * minute).toISOString();
const sizes = [
  { vcpus: 1, ram_gb: 2, disk_gb: 20 },
  { vcpus: 4, ram_gb: 16, disk_gb: 80 },
];

export const stepArb = fc.record({
  after: fc.integer({ min: 1, max: 14 * 24 * 60 }),
  kind: fc.constantFrom("power_off", "power_on", "resize", "transfer", "exists", "delete"),
  size: fc.constantFrom(0, 1),
  owner: fc.constantFrom("p1", "p2", "p3", "t1", "px"),
  late: fc.boolean(),
});

/** One instance or volume: a create somewhere from late September to the month's end, then steps; any event may arrive late. */
export const resourceArb = fc.record({
  type: fc.constantFrom("instance", "volume"),
  created: fc.integer({ min: 0, max: 36 * 24 * 60 }),
  owner: fc.constantFrom("p1", "p2", "p3", "t1", "px"),
  size: fc.constantFrom(0, 1),
  createLate: fc.boolean(),
  steps: fc.array(stepArb, { maxLength: 6 }),
});

export function resourceOf(index: number, r: Shape<typeof resourceArb>): Resource {
  const id = `${r.type === "instance" ? "i" : "v"}${index}`;
  const key = { cloud: "c1", platform: "platform_a", resource_type: r.type, resource_id: id };
  const size = (n: number) =>
    (r.type === "instance" ? sizes[n] : { size_gb: n === 0 ? 10 : 500 }) as Record<string, number>;
  const up = r.type === "instance" ? "active" : "available";
  const prefix = r.type === "instance" ? "compute.instance" : "volume";
  let t = r.created;
  let owner = r.owner;
  const events: LateEvent[] = [
    {
      event_id: `${id}-0`,
      timestamp: at(t),
      event_type: `${prefix}.create.end`,
      project_id: owner,
      payload: { state: up, size: size(r.size) },
      late: r.createLate,
    },
  ];
  r.steps.forEach((s, n) => {
    t += s.after;
    const payload =
      s.kind === "power_off"
        ? { state: r.type === "instance" ? "shutoff" : "available" }
        : s.kind === "power_on"
          ? { state: up }
          : s.kind === "resize" || s.kind === "exists"
            ? { state: up, size: size(s.size) }
            : {};
    if (s.kind === "transfer") owner = s.owner;
    events.push({
      event_id: `${id}-${n + 1}`,
      timestamp: at(t),
      event_type: s.kind === "delete" ? `${prefix}.delete.end` : `${prefix}.${s.kind}.end`,
      project_id: owner,
      payload,
      late: s.late,
    });
  });
  return { key, events };
}

export interface Metered {
  rated: RatedResource[];
  statements: Statement[];
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}

/** The month's rows as the reader hands them over: the events a filter lets through, by resource. */
function monthInput(
  resources: readonly Resource[],
  registry: RegistryData,
  keep: (e: LateEvent) => boolean,
): MonthInput {
  const rows: MonthEvent[] = resources.flatMap((r) =>
    r.events.filter(keep).map(({ late: _, ...event }) => ({ ...r.key, ...event })),
  );
  return { readAt: "2026-11-02T00:00:00.000Z", rows: once(rows), counters: null, ...registry };
}

/** A run over the events a filter lets through: every resource metered, rated and stated. */
async function meter(
  pricing: PriceOptions,
  resources: readonly Resource[],
  registry: RegistryData,
  keep: (e: LateEvent) => boolean,
): Promise<Metered> {
  const rated: RatedResource[] = [];
  const priced = await consume(priceMonth(monthInput(resources, registry, keep), pricing), async (batch) => {
    rated.push(...batch);
  });
  return { rated, statements: priced.statements };
}

/** The lines of a run as the store holds them (decimal text), and so as a correction reads them. */
function standingLines(rated: readonly RatedResource[]): StandingLines {
  const lines = new StandingLines();
  for (const { resource, rating } of rated) {
    for (const l of rating.lines) {
      lines.add(resource, {
        project_id: l.project_id,
        dimension: l.dimension,
        quantity: formatQuantity(l.quantity),
        unit_price: formatRate(l.unit_price),
        amount: formatMoney(l.amount),
      });
    }
  }
  return lines;
}

/** A correction over the whole month of what stands: `old`'s lines, its statements and those restated since. */
async function correct(
  pricing: PriceOptions,
  resources: readonly Resource[],
  registry: RegistryData,
  old: {
    rated: readonly RatedResource[];
    statements: readonly StatementFigures[];
    restated?: readonly StatementFigures[];
  },
) {
  const deltas: LineDelta[] = [];
  const standing = {
    statements: { regular: old.statements, corrections: old.restated === undefined ? [] : [old.restated] },
    lines: standingLines(old.rated),
  };
  const corrected = await consume(
    correctMonth({ ...monthInput(resources, registry, () => true), standing }, pricing),
    async (found) => {
      deltas.push(...found);
    },
  );
  return { deltas, notes: corrected.notes };
}

/**
 * The prices of the late months' instances and volumes, in a model named `name`; `more` (YAML at the
 * top level: price changes, plans) is what a test adds to them.
 */
export function lateMonthModel(name: string, more = ""): PricingModel {
  return readPricingModel(`format: 1
name: ${name}
currency: EUR
platforms:
  platform_a:
    instance:
      prices: { vcpus: "0.0125", ram_gb: "0.0042", disk_gb: "0.00014" }
      states: { active: [vcpus, ram_gb, disk_gb], shutoff: [disk_gb] }
    volume:
      prices: { size_gb: "0.00011" }
      states: { available: [size_gb] }
${more}`);
}

/** A run and a correction of the month under one pricing model and adjustment walk. */
export function lateMonthPipelines(pricing: PriceOptions) {
  return {
    meter: (resources: readonly Resource[], registry: RegistryData, keep: (e: LateEvent) => boolean) =>
      meter(pricing, resources, registry, keep),
    correct: (resources: readonly Resource[], registry: RegistryData, old: Parameters<typeof correct>[3]) =>
      correct(pricing, resources, registry, old),
    /** A month of `monthArb`: finalized over the events in time, complete over all, and the correction. */
    month: async (spec: Shape<typeof monthArb>, registry: RegistryData = registryWith(spec.rates)) => {
      const resources = spec.resources.map((r, i) => resourceOf(i, r));
      const finalized = await meter(pricing, resources, registry, (e) => !e.late);
      const complete = await meter(pricing, resources, registry, () => true);
      return {
        resources,
        registry,
        finalized,
        complete,
        ...(await correct(pricing, resources, registry, finalized)),
      };
    },
  };
}

const project = (id: string, external: string, platform = "platform_a", cloud = "c1"): RegistryProject => ({
  id,
  platform,
  cloud,
  externalId: external,
});
const relation = (
  id: string,
  source: string,
  target: string,
  type: string,
  adjustments?: { type: string; rate: string; scope: string }[],
): RegistryRelation => ({
  id,
  sourceId: source,
  targetId: target,
  relationType: type,
  metadata: adjustments === undefined ? {} : { pricing_adjustments: adjustments },
  validFrom: "2026-01-01T00:00:00.000Z",
  validTo: null,
});

/**
 * A registry with every kind of adjustment and an attribution: p1 has a reseller discount and
 * surcharge, p2 a partner's kickback, p3 a project discount; tenant t1 is attributed to the cluster
 * manager cm; px is not registered at all.
 */
export function registryWith(rates: {
  discount: string;
  surcharge: string;
  kickback: string;
  project: string;
}): RegistryData {
  const projects = [
    project("P1", "p1"),
    project("P2", "p2"),
    project("P3", "p3"),
    project("T1", "t1"),
    project("CM", "cm", "garden", "g1"),
    project("META", "reseller", "meta", "meta"),
    project("ACME", "acme", "partner", "partner"),
  ];
  const relations = [
    relation("r1", "P1", "META", "managed_by", [
      { type: "discount", rate: rates.discount, scope: "all" },
      { type: "surcharge", rate: rates.surcharge, scope: "platform_a.volume" },
    ]),
    relation("r2", "P2", "ACME", "managed_by", [
      { type: "discount", rate: rates.discount, scope: "platform_a.instance" },
      { type: "kickback", rate: rates.kickback, scope: "all" },
    ]),
    relation("r3", "P3", "META", "member_of", [
      { type: "project_discount", rate: rates.project, scope: "all" },
    ]),
    relation("r4", "CM", "T1", "infrastructure_tenant"),
    relation("r5", "CM", "ACME", "managed_by", [
      { type: "kickback", rate: rates.kickback, scope: "platform_a" },
    ]),
  ];
  return { projects, relations };
}

export const monthArb = fc.record({
  resources: fc.array(resourceArb, { minLength: 1, maxLength: 10 }),
  rates: fc.record({
    discount: fc.constantFrom("0.1", "0.15", "0.333333"),
    surcharge: fc.constantFrom("0.02", "0.5"),
    kickback: fc.constantFrom("0.05", "0.125"),
    project: fc.constantFrom("0.07", "1"),
  }),
});
