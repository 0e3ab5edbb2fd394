import { oracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../../lib/billing/simulator/oracle-bill/oracle-prices.ts";
import { oracleApportion } from "../../lib/billing/simulator/oracle-bill/oracle-statements.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import { Prng } from "../../lib/foundation/random/prng.ts";
import { instantFromMs } from "../../lib/foundation/time/instant.ts";
import { lineTieRate, rateText, shareTieRate } from "./edges-arithmetic.ts";
import { type DrawnPricing, drawPricing, pricingYaml } from "./edges-pricing.ts";
import type { PlannedRelation, RegistryPlan } from "./registry-plan.ts";
import type { DrawnMonth } from "./scenario.ts";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** The virtual projects of the money-edges registry: three partners and six groups. */
const v = {
  reseller: "partner/edge-reseller",
  distributor: "partner/edge-distributor",
  ties: "partner/edge-ties",
  group1: "meta/edge-group-1",
  group2: "meta/edge-group-2",
  group3: "meta/edge-group-3",
  group4: "meta/edge-group-4",
  alliance: "meta/edge-alliance",
  cooperative: "meta/edge-cooperative",
} as const;

/** The roles the month's classic tenants are drawn for; the first two need a bill the held share moves. */
const roles = [
  "deep",
  "ties",
  "nonPartner",
  "midMonth1",
  "midMonth2",
  "reopened",
  "joins",
  "leaves",
] as const;
type Role = (typeof roles)[number];

const project = (id: string) => ({ project: id });
const virtual = (name: string) => ({ virtual: name });
type Entry = PlannedRelation["adjustments"][number];
const all = (type: Entry["type"], rate: string, description: string): Entry => ({
  type,
  rate,
  scope: "all",
  description,
});

/** The month drawn for money-edges: its prices, its registry, and what each was drawn to show. */
export interface EdgesDraw {
  pricing: DrawnPricing;
  /** The pricing model's YAML. */
  pricingText: string;
  registry: RegistryPlan;
  /** Which tenant plays which role. */
  tenants: Record<Role, string>;
}

/** Per classic project, its rated cents per resource type (the buckets of its statement), in type order. */
function bucketsByProject(month: DrawnMonth, pricingText: string): Map<string, bigint[]> {
  const bill = oracleBill(month.oracle, readOraclePrices(pricingText));
  const byProject = new Map<string, Map<string, bigint>>();
  for (const [resource, rating] of bill.resources) {
    const type = resource.slice(0, resource.indexOf("/"));
    for (const line of rating.lines) {
      const buckets = byProject.get(line.project_id) ?? new Map<string, bigint>();
      buckets.set(type, (buckets.get(type) ?? 0n) + line.amount);
      byProject.set(line.project_id, buckets);
    }
  }
  return new Map(
    [...byProject].map(([p, b]) => [p, [...b].sort(([x], [y]) => compare(x, y)).map(([, a]) => a)]),
  );
}

/**
 * The ties tenant's two adjustments: a discount whose share on a bucket lands on half a cent, then a
 * kickback on the running net whose line does (decision 546). Null when its buckets allow neither.
 */
function tieAdjustments(buckets: readonly bigint[]): PlannedRelation["adjustments"] | null {
  const share = shareTieRate(buckets);
  if (share === null) return null;
  const shares = oracleApportion(-share.line, buckets);
  const nets = buckets.map((b, i) => b + (shares[i]?.amount ?? 0n));
  const kickback = lineTieRate(nets.reduce((a, b) => a + b, 0n));
  if (kickback === null) return null;
  return [
    { type: "discount", rate: rateText(share.rate), scope: "all", description: "a share on half a cent" },
    { type: "kickback", rate: rateText(kickback), scope: "all", description: "a kickback on half a cent" },
  ];
}

/**
 * The money-edges month (decision 546), drawn from the seed and the generated month so that every case
 * of issue 29 occurs: prices with an unpriced type and state and a line on half a cent
 * (`edges-pricing.ts`), and a registry with a walk past the depth reaching one relation by two paths, a
 * kickback to a group (dropped), relations and attributions starting and ending mid-month on and off
 * the hour, one closed and re-opened, two touching the month only at its edges, and a discount share
 * and a kickback on half a cent. The tenants whose bills must move in the correction are drawn from
 * those the held share touches.
 */
export function drawMoneyEdges(month: DrawnMonth): EdgesDraw {
  const rng = new Prng(month.seed, "money-edges");
  const pricing = drawPricing({
    defaultPricing: month.defaultPricing,
    oracle: month.oracle,
    held: month.held,
    rng,
    name: `money-edges-seed-${month.seed}`,
  });
  const pricingText = pricingYaml(
    pricing.document,
    `money-edges seed ${month.seed} (decision 546): ${pricing.unpricedType} unpriced, instance state ${pricing.unpricedState} left out, ${pricing.tie?.price ?? "no price"} lands ${pricing.tie?.resource ?? "no line"} on half a cent`,
  );
  const buckets = bucketsByProject(month, pricingText);
  const heldProjects = new Set(
    month.oracle.resources
      .filter((r) => month.held.has(`${r.resource_type}/${r.resource_id}`))
      .flatMap((r) => r.intervals.map((i) => i.project_id)),
  );
  const shuffled = [...month.tenants]
    .map((t) => ({ t, key: rng.next() }))
    .sort((a, b) => a.key - b.key)
    .map(({ t }) => t);
  const order = [
    ...shuffled.filter((t) => heldProjects.has(t)),
    ...shuffled.filter((t) => !heldProjects.has(t)),
  ];
  if (order.length < roles.length)
    throw new Error(
      `money-edges draws ${roles.length} roles from the classic tenants; the month has ${order.length}: run it with --tenants ${roles.length} or more`,
    );
  const deep = order[0] as string;
  const ties =
    order.slice(1).find((t) => tieAdjustments(buckets.get(t) ?? []) !== null) ?? (order[1] as string);
  const rest = order.filter((t) => t !== deep && t !== ties);
  const tenants = { deep, ties } as Record<Role, string>;
  roles.slice(2).forEach((role, i) => {
    tenants[role] = rest[i] as string;
  });
  return { pricing, pricingText, registry: registryOf(month, rng, tenants, buckets), tenants };
}

/**
 * The walk, the non-partner kickback and the ties (decision 546): drawn from nothing but the roles.
 * deep → reseller → group 1 → group 2 → group 3 → group 4, and deep → group 1 directly, so group 1's
 * relation is met at levels 2 and 3 and group 3's relation lies past the depth of 3.
 */
function walkRelations(t: Record<Role, string>, buckets: ReadonlyMap<string, bigint[]>): PlannedRelation[] {
  return [
    {
      from: project(t.deep),
      to: virtual(v.reseller),
      type: "managed_by",
      adjustments: [
        all("surcharge", "0.04", "reseller uplift"),
        all("kickback", "0.05", "reseller commission"),
      ],
    },
    {
      from: project(t.deep),
      to: virtual(v.group1),
      type: "member_of",
      adjustments: [all("project_discount", "0.03", "group loyalty")],
    },
    {
      from: virtual(v.reseller),
      to: virtual(v.group1),
      type: "member_of",
      adjustments: [all("discount", "0.02", "reseller's group")],
    },
    {
      // A surcharge: two discounts (or project discounts) from two relations would stack in the order
      // of relation ids, which the registry draws at random, and a golden month must not move by a cent.
      from: virtual(v.group1),
      to: virtual(v.group2),
      type: "member_of",
      adjustments: [
        { type: "surcharge", rate: "0.015", scope: "platform_a", description: "federation levy" },
      ],
    },
    {
      from: virtual(v.group2),
      to: virtual(v.group3),
      type: "member_of",
      adjustments: [all("surcharge", "0.025", "the third level")],
    },
    {
      from: virtual(v.group3),
      to: virtual(v.group4),
      type: "member_of",
      adjustments: [all("discount", "0.5", "past the depth: never applied")],
    },
    {
      from: { manager: "alpha" },
      to: virtual(v.reseller),
      type: "managed_by",
      adjustments: [
        all("surcharge", "0.03", "cluster uplift"),
        { type: "kickback", rate: "0.02", scope: "platform_a.instance", description: "cluster commission" },
      ],
    },
    {
      from: { manager: "beta" },
      to: virtual(v.group1),
      type: "member_of",
      adjustments: [{ type: "project_discount", rate: "0.04", scope: "platform_a.instance" }],
    },
    {
      // A kickback to a group, not a partner: dropped with a warning, the discount kept.
      from: project(t.nonPartner),
      to: virtual(v.alliance),
      type: "member_of",
      adjustments: [all("discount", "0.1", "alliance rebate"), all("kickback", "0.05", "no partner to pay")],
    },
    {
      from: project(t.ties),
      to: virtual(v.ties),
      type: "managed_by",
      adjustments: tieAdjustments(buckets.get(t.ties) ?? []) ?? [all("discount", "0.5", "no tie found")],
    },
  ];
}

/**
 * Relations in force for part of the month, a re-opened triple, the month's two edges and two
 * attributions, their instants drawn from the seed (decision 546).
 */
function spanRelations(month: DrawnMonth, rng: Prng, t: Record<Role, string>): PlannedRelation[] {
  const from = Date.parse(month.oracle.period_from);
  const to = Date.parse(month.oracle.period_to);
  const days = Math.floor((to - from) / day);
  const onHour = () => from + rng.int(3, days - 6) * day + rng.int(0, 23) * hour;
  const offHour = () => onHour() + rng.int(1, 59) * minute + rng.int(0, 59_999);
  const at = instantFromMs;
  const closedAt = offHour();
  const reopenedAt = closedAt + rng.int(1, 3) * day - (closedAt % hour);
  /** A tenant's relation to the distributor from `starts` on, and to the cooperative until `ends`. */
  const midMonth = (
    tenant: string,
    starts: number,
    ends: number,
    [discount, kickback, until]: [string, string, Entry],
  ): PlannedRelation[] => [
    {
      from: project(tenant),
      to: virtual(v.distributor),
      type: "managed_by",
      adjustments: [all("discount", discount, "from mid-month"), all("kickback", kickback, "from mid-month")],
      validFrom: at(starts),
    },
    {
      from: project(tenant),
      to: virtual(v.cooperative),
      type: "member_of",
      adjustments: [until],
      validTo: at(ends),
    },
  ];
  return [
    // Relations in force for part of the month: from mid-month on the hour and off it, to mid-month
    // off the hour and on it.
    ...midMonth(t.midMonth1, onHour(), offHour(), [
      "0.08",
      "0.03",
      all("surcharge", "0.05", "until mid-month"),
    ]),
    ...midMonth(t.midMonth2, offHour(), onHour(), [
      "0.07",
      "0.02",
      all("project_discount", "0.05", "until mid-month"),
    ]),
    // Closed and re-opened within the month: the later relation counts, once.
    {
      from: project(t.reopened),
      to: virtual(v.cooperative),
      type: "member_of",
      adjustments: [all("discount", "0.06", "closed mid-month")],
      validTo: at(closedAt),
    },
    {
      from: project(t.reopened),
      to: virtual(v.cooperative),
      type: "member_of",
      adjustments: [all("discount", "0.09", "re-opened"), all("surcharge", "0.01", "re-opened")],
      validFrom: at(reopenedAt),
    },
    // Touching the month only at its edges: in force for none of it.
    {
      from: project(t.reopened),
      to: virtual(v.distributor),
      type: "managed_by",
      adjustments: [all("discount", "0.5", "ended as the month began")],
      validFrom: at(from - 20 * day),
      validTo: at(from),
    },
    {
      from: project(t.reopened),
      to: virtual(v.distributor),
      type: "managed_by",
      adjustments: [all("kickback", "0.5", "begins as the month ends")],
      validFrom: at(to),
    },
    // Attribution from mid-month on the hour, and until mid-month off it.
    {
      from: { manager: "beta" },
      to: project(t.joins),
      type: "infrastructure_tenant",
      adjustments: [],
      validFrom: at(onHour()),
    },
    {
      from: { manager: "alpha" },
      to: project(t.leaves),
      type: "infrastructure_tenant",
      adjustments: [],
      validTo: at(offHour()),
    },
  ];
}

function registryOf(
  month: DrawnMonth,
  rng: Prng,
  t: Record<Role, string>,
  buckets: ReadonlyMap<string, bigint[]>,
): RegistryPlan {
  return {
    virtual: Object.values(v).map((name) => {
      const [platform, external_id] = name.split("/") as ["meta" | "partner", string];
      return { platform, external_id, name: `money edges: ${external_id}` };
    }),
    relations: [...walkRelations(t, buckets), ...spanRelations(month, rng, t)],
  };
}
