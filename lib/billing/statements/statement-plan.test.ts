import { describe, expect, test } from "bun:test";
import { decimal, formatMoney } from "../../foundation/money/decimal.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { RunWarnings } from "../metering/run-warnings.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { buildStatements, type Statement } from "./build-statements.ts";
import { ProjectCosts } from "./project-costs.ts";
import { Registry, type RegistryProject, type RegistryRelation } from "./registry.ts";

const model = readPricingModel(`
format: 1
name: plans-test
currency: EUR
platforms:
  platform_a:
    instance:
      prices: { vcpus: "0.0125" }
      states: { active: [vcpus] }
    volume:
      prices: { size_gb: "0.0001" }
      states: { available: [size_gb] }
plans:
  large-compute:
    projects:
      c1: [p]
    tiered:
      - dimension: platform_a.instance.vcpus
        mode: graduated
        tiers:
          - { up_to: "2000", price: "0.0125" }
          - { up_to: "10000", price: "0.0100" }
          - { price: "0.0080" }
  committed:
    projects:
      c1: [idle, t, stranger]
    minimums:
      - scope: platform_a
        amount: "200.00"
      - scope: platform_a.instance
        amount: "150.00"
`);

const msPerHour = decimal("3600000");
const project = (id: string, externalId: string, platform = "platform_a", cloud = "c1"): RegistryProject => ({
  id,
  platform,
  cloud,
  externalId,
});
const relation = (
  id: string,
  source: string,
  target: string,
  type: string,
  rate?: string,
): RegistryRelation => ({
  id,
  sourceId: source,
  targetId: target,
  relationType: type,
  metadata: rate === undefined ? {} : { pricing_adjustments: [{ type: "discount", rate, scope: "all" }] },
  validFrom: "2026-09-01T00:00:00.000Z",
  validTo: null,
});
const projects = [
  project("P", "p"),
  project("I", "idle"),
  project("T", "t"),
  project("CM", "alpha", "garden", "garden-1"),
  project("META", "reseller", "meta", "meta"),
];

/** `hours` vcpu-hours of instance usage by `projectId` at the list price, as one rated line. */
function vcpuLine(costs: ProjectCosts, projectId: string, hours: string) {
  const numerator = decimal(hours).times(msPerHour);
  const priced = numerator.times("0.0125");
  costs.add(
    { cloud: "c1", platform: "platform_a", resource_type: "instance" },
    { project_id: projectId, dimension: "vcpus", numerator, priced, amount: priced.div(msPerHour).round(2) },
  );
}

function build(costs: ProjectCosts, relations: RegistryRelation[] = []) {
  const warnings = new RunWarnings();
  const statements = buildStatements(
    costs.costs(),
    new Registry(projects, relations, parsePeriod("2026-10")),
    { relationTypes: ["managed_by", "member_of"], depth: 3, plans: model },
    warnings,
  );
  return { statements, warnings: warnings.stats() };
}

const figures = (s: Statement) => ({
  project: s.project_id,
  buckets: s.buckets.map((b) => [`${b.platform}.${b.resource_type}`, formatMoney(b.amount)]),
  base: formatMoney(s.base_cost),
  total: formatMoney(s.total),
  tiers: s.plan?.tier_lines.map((t) => [t.dimension, formatMoney(t.amount)]) ?? [],
  minimums: s.plan?.minimums.map((m) => [m.scope, formatMoney(m.usage), formatMoney(m.amount)]) ?? [],
});

describe("plans on statements", () => {
  test("the worked example: a tier line in the dimension's bucket, in the base, before adjustments", () => {
    const costs = new ProjectCosts(model.plans);
    vcpuLine(costs, "p", "6000"); // 75.00
    vcpuLine(costs, "p", "6345.5"); // 79.31875 → 79.32
    const { statements } = build(costs, [relation("r1", "P", "META", "managed_by", "0.1")]);
    const s = statements.find((x) => x.project_id === "p") as Statement;
    // Tiers 123.764 less the list price 154.31875: −30.55475 → −30.55; the bucket 154.32 − 30.55.
    expect(figures(s)).toEqual({
      project: "p",
      buckets: [["platform_a.instance", "123.77"]],
      base: "123.77",
      total: "111.39",
      tiers: [["platform_a.instance.vcpus", "-30.55"]],
      minimums: [],
    });
    expect(s.adjustments.map((a) => [formatMoney(a.base), formatMoney(a.amount)])).toEqual([
      ["123.77", "-12.38"],
    ]);
  });

  test("minimums: type first, then the platform counting the type's top-up; a discount reaches the top-ups", () => {
    const costs = new ProjectCosts(model.plans);
    const { statements, warnings } = build(costs, [relation("r1", "I", "META", "managed_by", "0.1")]);
    // `idle` used nothing and has its statement; `t` is its own (nothing attributes it); `stranger` is
    // not registered: its statement counts the warning, as costs would.
    expect(statements.map(figures)).toEqual([
      {
        project: "idle",
        buckets: [
          ["platform_a.commitment", "50.00"],
          ["platform_a.instance", "150.00"],
        ],
        base: "200.00",
        total: "180.00",
        tiers: [],
        minimums: [
          ["platform_a.instance", "0.00", "150.00"],
          ["platform_a", "150.00", "50.00"],
        ],
      },
      ...["stranger", "t"].map((id) => ({
        project: id,
        buckets: [
          ["platform_a.commitment", "50.00"],
          ["platform_a.instance", "150.00"],
        ],
        base: "200.00",
        total: "200.00",
        tiers: [],
        minimums: [
          ["platform_a.instance", "0.00", "150.00"],
          ["platform_a", "150.00", "50.00"],
        ],
      })),
    ]);
    expect(warnings.codes).toEqual({ project_not_registered: 1 });
  });

  test("a met minimum adds nothing and still shows its usage", () => {
    const costs = new ProjectCosts(model.plans);
    vcpuLine(costs, "idle", "20000"); // 250.00
    const s = build(costs).statements.find((x) => x.project_id === "idle") as Statement;
    expect(figures(s)).toMatchObject({
      buckets: [["platform_a.instance", "250.00"]],
      total: "250.00",
      minimums: [
        ["platform_a.instance", "250.00", "0.00"],
        ["platform_a", "250.00", "0.00"],
      ],
    });
  });

  test("a plan naming an attributed tenant bills nothing: its costs are on its manager's statement", () => {
    const costs = new ProjectCosts(model.plans);
    vcpuLine(costs, "t", "8"); // 0.10
    const { statements } = build(costs, [relation("ri", "CM", "T", "infrastructure_tenant")]);
    expect(statements.map((s) => [s.project_id, formatMoney(s.total), s.plan === null])).toEqual([
      ["idle", "200.00", false],
      ["stranger", "200.00", false],
      ["alpha", "0.10", true],
    ]);
  });

  test("a statement under no plan, or a model without plans, is as before", () => {
    const costs = new ProjectCosts();
    vcpuLine(costs, "p", "6000");
    const warnings = new RunWarnings();
    const [s] = buildStatements(
      costs.costs(),
      new Registry(projects, [], parsePeriod("2026-10")),
      { relationTypes: [], depth: 3 },
      warnings,
    );
    expect([s?.plan, formatMoney(s?.total ?? decimal("0"))]).toEqual([null, "75.00"]);
  });
});
