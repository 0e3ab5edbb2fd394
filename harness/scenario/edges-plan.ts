import {
  type OracleBill,
  type OracleRated,
  rateOracleMonth,
  stateOracleMonth,
} from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../../lib/billing/simulator/oracle-bill/oracle-prices.ts";
import { oracleApportion } from "../../lib/billing/simulator/oracle-bill/oracle-statements.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import { Prng } from "../../lib/foundation/random/prng.ts";
import { instantFromMs } from "../../lib/foundation/time/instant.ts";
import { type EdgeCases, edgeCases, missingCases } from "./edge-cases.ts";
import { lineTieRate, rateText, roundedCents, shareTieRate } from "./edges-arithmetic.ts";
import { type DrawnPricing, drawPricing, pricingYaml } from "./edges-pricing.ts";
import { plannedRegistry } from "./edges-registry.ts";
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
  /** The cases the oracle finds in the month so drawn, the correction's among them (none is zero). */
  planned: EdgeCases;
}

/** Per project, its rated cents per resource type (the buckets of its statement), in type order. */
function bucketsByProject(rated: OracleRated): Map<string, bigint[]> {
  return new Map(
    rated.costs.map((c) => [
      c.project_id,
      [...c.buckets].sort((x, y) => compare(x.resource_type, y.resource_type)).map((b) => b.amount),
    ]),
  );
}

/**
 * The ties tenant's two adjustments: a discount whose share on a bucket lands on half a cent, then a
 * kickback on the running net whose line does (decision 546), at the smallest such rate whose line
 * the correction moves, from `before` (its buckets as the finalized run reads them) to `buckets`
 * (decision 548). Null when its buckets allow neither tie.
 */
function tieAdjustments(
  buckets: readonly bigint[],
  before: readonly bigint[],
): PlannedRelation["adjustments"] | null {
  const share = shareTieRate(buckets);
  if (share === null) return null;
  const shares = oracleApportion(-share.line, buckets);
  const net = buckets.reduce((a, b) => a + b, 0n) + shares.reduce((a, s) => a + s.amount, 0n);
  const base = before.reduce((a, b) => a + b, 0n);
  const netBefore = base - roundedCents(share.rate * base, million);
  const moves = (rate: bigint) =>
    roundedCents(rate * net, million) !== roundedCents(rate * netBefore, million);
  const kickback = lineTieRate(net, moves);
  if (kickback === null) return null;
  return [
    { type: "discount", rate: rateText(share.rate), scope: "all", description: "a share on half a cent" },
    { type: "kickback", rate: rateText(kickback), scope: "all", description: "a kickback on half a cent" },
  ];
}

const million = 1_000_000n;

/**
 * The money-edges month (decisions 546, 548), drawn from the seed and the generated month so that every
 * case of issue 29 occurs: prices with an unpriced type and state and a line on half a cent
 * (`edges-pricing.ts`), and a registry with a walk past the depth reaching one relation by two paths, a
 * kickback to a group (dropped), relations and attributions starting and ending mid-month on and off
 * the hour, one closed and re-opened, two touching the month only at its edges, and a discount share
 * and a kickback on half a cent. The walk and the ties go to the tenants whose bills the held share
 * moves most (as the finalized run reads the month, `finalized-oracle.ts`), and the draw states the
 * month both ways with the oracle to see every case occur, the correction's too (each adjustment type
 * moved, a credit-note delta on a tie), trying the next tenants when one misses: a month where none
 * will is refused, naming what it misses, instead of passing quietly.
 */
export function drawMoneyEdges(month: DrawnMonth): EdgesDraw {
  const rng = new Prng(month.seed, "money-edges");
  const pricing = drawPricing({
    defaultPricing: month.defaultPricing,
    oracle: month.oracle,
    finalized: month.finalized,
    rng,
    name: `money-edges-seed-${month.seed}`,
  });
  const pricingText = pricingYaml(
    pricing.document,
    `money-edges seed ${month.seed} (decision 546): ${pricing.unpricedType} unpriced, instance state ${pricing.unpricedState} left out, ${pricing.tie?.price ?? "no price"} lands ${pricing.tie?.resource ?? "no line"} on half a cent`,
  );
  if (month.tenants.length < roles.length)
    throw new Error(
      `money-edges draws ${roles.length} roles from the classic tenants; the month has ${month.tenants.length}: run it with --tenants ${roles.length} or more`,
    );
  const prices = readOraclePrices(pricingText);
  const complete = rateOracleMonth(month.oracle, prices);
  const finalized = rateOracleMonth(month.finalized, prices);
  const buckets = bucketsByProject(complete);
  const before = bucketsByProject(finalized);
  const total = (b: readonly bigint[] | undefined) => (b ?? []).reduce((x, y) => x + y, 0n);
  const moved = (t: string) => {
    const d = total(buckets.get(t)) - total(before.get(t));
    return d < 0n ? -d : d;
  };
  const shuffled = [...month.tenants]
    .map((t) => ({ t, key: rng.next() }))
    .sort((a, b) => a.key - b.key)
    .map(({ t }) => t);
  // Most moved first; among equals, the seed's order.
  const order = [...shuffled].sort((a, b) => Number(moved(b) - moved(a)));
  const tiesFirst = order.filter((t) => tieAdjustments(buckets.get(t) ?? [], before.get(t) ?? []) !== null);
  let missing: string[] = [];
  for (const deep of order.slice(0, tries))
    for (const ties of tiesFirst.filter((t) => t !== deep).slice(0, tries)) {
      const rest = shuffled.filter((t) => t !== deep && t !== ties);
      const tenants = { deep, ties } as Record<Role, string>;
      roles.slice(2).forEach((role, i) => {
        tenants[role] = rest[i] as string;
      });
      const ofCommission = (commission: string) =>
        registryOf(month, tenants, {
          ties: tieAdjustments(buckets.get(ties) ?? [], before.get(ties) ?? []) ?? [],
          commission,
        });
      const stated = (registry: RegistryPlan) => {
        const input = plannedRegistry(month, registry);
        return [
          stateOracleMonth(complete, prices, input),
          stateOracleMonth(finalized, prices, input),
        ] as const;
      };
      const registry = ofCommission(tieCommission(deep, ...stated(ofCommission(defaultCommission))));
      const planned = edgeCases(...stated(registry));
      missing = missingCases(planned);
      if (missing.length === 0) return { pricing, pricingText, registry, tenants, planned };
    }
  throw new Error(
    `money-edges seed ${month.seed}: no choice of its tenants makes every case occur (missing ${missing.join(", ") || "a tenant whose buckets allow a tie"}); try another seed`,
  );
}

/** How many tenants the walk and the ties are each tried on, most moved first. */
const tries = 3;

/** The reseller's commission on the walk's tenant when no rate of it lands on half a cent. */
const defaultCommission = "0.05";

/**
 * The reseller's commission on the walk's tenant (decision 548): the smallest rate of at least a
 * hundredth whose line lies on half a cent and moves in the correction, so a credit-note delta lands on
 * a tie. A kickback is applied last and changes no other line, so its base, the statement's net, is
 * read from the month stated at any commission (complete and as the finalized run reads it).
 */
function tieCommission(deep: string, complete: OracleBill, finalized: OracleBill): string {
  const base = (bill: OracleBill) =>
    bill.statements
      ?.find((s) => s.project_id === deep)
      ?.adjustments.find((a) => a.type === "kickback" && a.relation_target === externalId(v.reseller))
      ?.base ?? 0n;
  const [after, was] = [base(complete), base(finalized)];
  const rate = lineTieRate(after, (x) => roundedCents(x * after, million) !== roundedCents(x * was, million));
  return rate === null ? defaultCommission : rateText(rate);
}

const externalId = (name: string) => name.slice(name.indexOf("/") + 1);

/**
 * The walk, the non-partner kickback and the ties (decision 546): drawn from nothing but the roles.
 * deep → reseller → group 1 → group 2 → group 3 → group 4, and deep → group 1 directly, so group 1's
 * relation is met at levels 2 and 3 and group 3's relation lies past the depth of 3.
 */
function walkRelations(
  t: Record<Role, string>,
  { ties, commission }: { ties: PlannedRelation["adjustments"]; commission: string },
): PlannedRelation[] {
  return [
    {
      from: project(t.deep),
      to: virtual(v.reseller),
      type: "managed_by",
      adjustments: [
        all("surcharge", "0.04", "reseller uplift"),
        all("kickback", commission, "reseller commission"),
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
      adjustments: ties,
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
  t: Record<Role, string>,
  drawn: { ties: PlannedRelation["adjustments"]; commission: string },
): RegistryPlan {
  // Its own stream: the instants stay the same whichever tenants a try draws.
  const rng = new Prng(month.seed, "money-edges spans");
  return {
    virtual: Object.values(v).map((name) => {
      const [platform, external_id] = name.split("/") as ["meta" | "partner", string];
      return { platform, external_id, name: `money edges: ${external_id}` };
    }),
    relations: [...walkRelations(t, drawn), ...spanRelations(month, rng, t)],
  };
}
