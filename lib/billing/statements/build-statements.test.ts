import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { type Decimal, decimal, formatMoney, sum } from "../../foundation/money/decimal.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { RunWarnings } from "../metering/run-warnings.ts";
import type { Bucket } from "./bucket.ts";
import { buildStatements, type ProjectCost, type Statement } from "./build-statements.ts";
import { Registry, type RegistryProject, type RegistryRelation } from "./registry.ts";

const period = parsePeriod("2026-10");
const options = { relationTypes: ["managed_by", "member_of"], depth: 3 };

const project = (id: string, externalId: string, platform = "platform_a", cloud = "c1"): RegistryProject => ({
  id,
  platform,
  cloud,
  externalId,
});
let relationSeq = 0;
function relation(
  source: string,
  target: string,
  type: string,
  adjustments?: JsonObject[] | JsonObject,
  id?: string,
): RegistryRelation {
  relationSeq += 1;
  return {
    id: id ?? `r${String(relationSeq).padStart(3, "0")}`,
    sourceId: source,
    targetId: target,
    relationType: type,
    metadata: adjustments === undefined ? {} : { pricing_adjustments: adjustments },
    validFrom: "2026-09-01T00:00:00.000Z",
    validTo: null,
  };
}
const bucket = (platform: string, resource_type: string, amount: string): Bucket => ({
  platform,
  resource_type,
  amount: decimal(amount),
});
const cost = (project_id: string, buckets: Bucket[], cloud = "c1"): ProjectCost => ({
  cloud,
  project_id,
  buckets,
});

const base = [
  project("P", "p"),
  project("T", "t"),
  project("CM", "alpha", "garden", "garden-1"),
  project("META", "reseller", "meta", "meta"),
  project("PARTNER", "acme", "partner", "partner"),
];

function build(costs: ProjectCost[], relations: RegistryRelation[], projects = base, opts = options) {
  const warnings = new RunWarnings();
  const statements = buildStatements(costs, new Registry(projects, relations, period), opts, warnings);
  return { statements, warnings: warnings.stats() };
}

const money = (s: Statement) => ({
  base: formatMoney(s.base_cost),
  net: formatMoney(s.net_cost),
  kickback: formatMoney(s.kickback_total),
  total: formatMoney(s.total),
  lines: s.adjustments.map((l) => [l.type, l.scope, formatMoney(l.base), formatMoney(l.amount)]),
});

const twoBuckets = [bucket("platform_a", "instance", "100.00"), bucket("platform_a", "volume", "50.00")];

describe("application of adjustments, one example per rule", () => {
  test("1. a breadth-first walk over the configured types, to the configured depth, each relation once", () => {
    const projects = [...base, project("M2", "upper", "meta", "meta"), project("M3", "top", "meta", "meta")];
    const d = (rate: string) => [{ type: "discount", rate, scope: "all" }];
    const relations = [
      relation("P", "META", "managed_by", d("0.1"), "r1"),
      relation("META", "M2", "member_of", d("0.1"), "r2"),
      relation("M2", "M3", "member_of", d("0.1"), "r3"),
      // another type is not followed, whatever it holds
      relation("P", "M3", "infra_link", d("0.5"), "r4"),
    ];
    const deep = build([cost("p", twoBuckets)], relations, projects);
    expect(deep.statements[0]?.adjustments.map((l) => l.relation_id)).toEqual(["r1", "r2", "r3"]);
    const shallow = build([cost("p", twoBuckets)], relations, projects, { ...options, depth: 2 });
    expect(shallow.statements[0]?.adjustments.map((l) => l.relation_id)).toEqual(["r1", "r2"]);
    // A relation reached by two paths is visited once.
    const diamond = [
      relation("P", "META", "managed_by", undefined, "r5"),
      relation("P", "M2", "managed_by", undefined, "r6"),
      relation("META", "M3", "member_of", d("0.1"), "r7"),
      relation("M2", "M3", "member_of", undefined, "r8"),
      relation("M3", "M2", "member_of", undefined, "r9"),
    ];
    expect(
      build([cost("p", twoBuckets)], diamond, projects).statements[0]?.adjustments.map((l) => l.relation_id),
    ).toEqual(["r7"]);
  });

  test("2. order: surcharge, discount, project_discount, kickback; by relation id; by array position", () => {
    const { statements } = build(
      [cost("p", twoBuckets)],
      [
        relation("P", "PARTNER", "managed_by", [{ type: "kickback", rate: "0.05", scope: "all" }], "r2"),
        relation(
          "P",
          "META",
          "managed_by",
          [
            { type: "project_discount", rate: "0.1", scope: "all" },
            { type: "discount", rate: "0.2", scope: "all" },
            { type: "surcharge", rate: "0.01", scope: "all" },
            { type: "discount", rate: "0.1", scope: "all" },
          ],
          "r1",
        ),
      ],
    );
    expect(
      statements[0]?.adjustments.map((l) => [l.type, l.relation_id, formatMoney(l.rate.times(100))]),
    ).toEqual([
      ["surcharge", "r1", "1.00"],
      ["discount", "r1", "20.00"],
      ["discount", "r1", "10.00"],
      ["project_discount", "r1", "10.00"],
      ["kickback", "r2", "5.00"],
    ]);
  });

  test("3. surcharges add on the base, discounts stack on the running net, a kickback stands beside it", () => {
    const { statements } = build(
      [cost("p", twoBuckets)],
      [
        relation("P", "META", "managed_by", [
          { type: "surcharge", rate: "0.1", scope: "all" },
          { type: "surcharge", rate: "0.1", scope: "all" },
          { type: "discount", rate: "0.5", scope: "all" },
          { type: "discount", rate: "0.5", scope: "all" },
        ]),
        relation("P", "PARTNER", "member_of", [{ type: "kickback", rate: "0.1", scope: "all" }]),
      ],
    );
    expect(money(statements[0] as Statement)).toEqual({
      base: "150.00",
      net: "45.00",
      kickback: "4.50",
      total: "45.00",
      lines: [
        ["surcharge", "all", "150.00", "15.00"],
        ["surcharge", "all", "150.00", "15.00"],
        ["discount", "all", "180.00", "-90.00"],
        ["discount", "all", "90.00", "-45.00"],
        ["kickback", "all", "45.00", "4.50"],
      ],
    });
  });

  test("4. scopes: all, a platform, a platform and resource type; exact; a scope covering nothing touches nothing", () => {
    const { statements } = build(
      [cost("p", [...twoBuckets, bucket("platform_b", "instance", "10.00")])],
      [
        relation("P", "META", "managed_by", [
          { type: "discount", rate: "0.1", scope: "platform_a.volume" },
          { type: "discount", rate: "0.1", scope: "platform_b" },
          { type: "discount", rate: "0.1", scope: "platform_a.volumes" },
          { type: "discount", rate: "0.1", scope: "platform_c" },
          { type: "surcharge", rate: "0.01", scope: "all" },
        ]),
      ],
    );
    expect(money(statements[0] as Statement).lines).toEqual([
      ["surcharge", "all", "160.00", "1.60"],
      ["discount", "platform_a.volume", "50.50", "-5.05"],
      ["discount", "platform_b", "10.10", "-1.01"],
    ]);
  });

  test("5. one rounding per line, apportioned with the remainder to the last bucket", () => {
    const { statements } = build(
      [
        cost("p", [
          bucket("platform_a", "image", "0.01"),
          bucket("platform_a", "instance", "0.01"),
          bucket("platform_a", "volume", "0.01"),
        ]),
      ],
      [relation("P", "META", "managed_by", [{ type: "discount", rate: "0.5", scope: "all" }])],
    );
    const line = statements[0]?.adjustments[0];
    expect(formatMoney(line?.amount as Decimal)).toBe("-0.02");
    expect(line?.shares.map((s) => [s.resource_type, formatMoney(s.amount)])).toEqual([
      ["image", "-0.01"],
      ["instance", "-0.01"],
      ["volume", "0.00"],
    ]);
    expect(formatMoney(statements[0]?.total as Decimal)).toBe("0.01");
  });

  test("6. a kickback to a non-partner is dropped with its warning; the relation's other adjustments stay", () => {
    const { statements, warnings } = build(
      [cost("p", twoBuckets)],
      [
        relation("P", "META", "managed_by", [
          { type: "kickback", rate: "0.1", scope: "all" },
          { type: "discount", rate: "0.1", scope: "all" },
        ]),
      ],
    );
    expect(money(statements[0] as Statement).lines).toEqual([["discount", "all", "150.00", "-15.00"]]);
    expect(warnings.codes).toEqual({ adjustment_kickback_target_not_partner: 1 });
    expect(warnings.warnings.adjustment).toBe(1);
  });

  test("7. a reachable relation whose array cannot be read fails the statement; others stand", () => {
    const { statements, warnings } = build(
      [cost("p", twoBuckets), cost("t", twoBuckets)],
      [
        relation("P", "META", "managed_by", [{ type: "discount", rate: "1.5", scope: "all" }]),
        relation("T", "META", "managed_by", [{ type: "discount", rate: "0.5", scope: "all" }]),
      ],
    );
    expect(statements.map((s) => [s.project_id, s.error, formatMoney(s.total)])).toEqual([
      ["p", expect.stringContaining("cannot be read"), "150.00"],
      ["t", null, "75.00"],
    ]);
    expect(warnings.codes).toEqual({ pricing_adjustments_unreadable: 1 });
  });
});

describe("attribution and registration", () => {
  test("an infrastructure tenant's cost shows on its cluster manager's statement only, in its base", () => {
    const { statements } = build(
      [cost("p", twoBuckets), cost("t", [bucket("platform_a", "instance", "10.00")])],
      [
        relation("CM", "T", "infrastructure_tenant", undefined, "ri"),
        relation("CM", "META", "managed_by", [{ type: "discount", rate: "0.1", scope: "all" }]),
      ],
    );
    expect(statements.map((s) => [s.cloud, s.project_id, formatMoney(s.total)])).toEqual([
      ["c1", "p", "150.00"],
      ["garden-1", "alpha", "9.00"],
    ]);
    expect(statements[1]?.related.map((r) => [r.relation_id, r.project_id, formatMoney(r.total)])).toEqual([
      ["ri", "t", "10.00"],
    ]);
  });

  test("an unregistered project gets its statement, unadjusted, and a warning", () => {
    const { statements, warnings } = build([cost("stranger", twoBuckets)], []);
    expect(statements.map((s) => [s.project_id, s.registry_id, formatMoney(s.total)])).toEqual([
      ["stranger", null, "150.00"],
    ]);
    expect(warnings.warnings.unregistered_projects).toBe(1);
  });

  test("a relation whose span misses the period does not count", () => {
    const ended = {
      ...relation("P", "META", "managed_by", [{ type: "discount", rate: "0.5", scope: "all" }]),
    };
    ended.validTo = "2026-10-01T00:00:00.000Z";
    expect(build([cost("p", twoBuckets)], [ended]).statements[0]?.adjustments).toEqual([]);
  });
});

describe("properties", () => {
  const amount = fc.integer({ min: 0, max: 10_000_000 }).map((n) => (n / 100).toFixed(2));
  const rate = fc.integer({ min: 0, max: 1_000_000 }).map((n) => (n / 1_000_000).toFixed(6));
  const adjustment = fc.record({
    type: fc.constantFrom("surcharge", "discount", "project_discount", "kickback"),
    rate,
    scope: fc.constantFrom("all", "platform_a", "platform_a.instance", "platform_a.volume", "platform_b"),
  });
  const buckets = fc
    .uniqueArray(fc.constantFrom("instance", "volume", "image", "floating_ip"), {
      minLength: 1,
      maxLength: 4,
    })
    .chain((types) => fc.tuple(...types.map((t) => amount.map((a) => bucket("platform_a", t, a)))));
  const scenario = fc.record({
    buckets,
    meta: fc.array(adjustment, { minLength: 1, maxLength: 6 }),
    partner: fc.array(adjustment, { minLength: 1, maxLength: 3 }),
  });

  test("every statement's total is its base plus its lines, and every line's shares sum to it", () => {
    fc.assert(
      fc.property(scenario, ({ buckets, meta, partner }) => {
        const { statements } = build(
          [cost("p", buckets)],
          [relation("P", "META", "managed_by", meta), relation("P", "PARTNER", "member_of", partner)],
        );
        const s = statements[0] as Statement;
        const notKickback = s.adjustments.filter((l) => l.type !== "kickback");
        expect(formatMoney(s.total)).toBe(
          formatMoney(s.base_cost.plus(sum(notKickback.map((l) => l.amount)))),
        );
        expect(formatMoney(s.total)).toBe(formatMoney(s.net_cost));
        for (const line of s.adjustments) {
          expect(formatMoney(sum(line.shares.map((x) => x.amount)))).toBe(formatMoney(line.amount));
          expect(line.amount.eq(line.amount.round(2))).toBe(true);
        }
        expect(formatMoney(s.kickback_total)).toBe(
          formatMoney(sum(s.adjustments.filter((l) => l.type === "kickback").map((l) => l.amount))),
        );
      }),
    );
  });
});
