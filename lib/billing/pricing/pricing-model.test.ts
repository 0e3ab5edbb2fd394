import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { PricingModelError, planKey, readPricingModel } from "./pricing-model.ts";

const defaultModel = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);
const exampleText = readFileSync(new URL("../../../pricing/example.yaml", import.meta.url), "utf8");

function problemsOf(text: string): string[] {
  try {
    readPricingModel(text);
  } catch (e) {
    if (e instanceof PricingModelError) return e.problems;
    throw e;
  }
  return [];
}

/** A model of one platform and `types` (YAML lines under `platform_a:`), with `rest` after it. */
const modelWith = (types: string, rest = "") =>
  `format: 1\nname: t\ncurrency: EUR\nplatforms:\n  platform_a:\n${types}${rest}`;

const instanceType = `    instance:
      prices: { vcpus: "0.01", ram_gb: "0.004" }
      states: { active: [vcpus, ram_gb], shutoff: [] }
`;
const volumeType = `    volume:
      prices: { size_gb: "0.0001" }
      states: { available: [size_gb] }
`;

describe("readPricingModel", () => {
  test("the shipped default model reads", () => {
    expect(defaultModel.name).toBe("svc-default-2026");
    expect(defaultModel.currency).toBe("EUR");
    expect(defaultModel.platforms.get("platform_a")?.get("instance")?.prices.get("vcpus")?.toString()).toBe(
      "0.0125",
    );
    expect(defaultModel.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  test("every problem is reported at once, located", () => {
    const text = `format: 2
name: "bad name"
currency: eur
extra: 1
platforms:
  platform_a:
    instance:
      prices: { vcpus: "-1", gpus: "1", ram_gb: "1e3" }
      states: { active: [vcpus, disk_gb, vcpus], shutoff: disk_gb }
    router:
      prices: {}
`;
    let problems: string[] = [];
    try {
      readPricingModel(text);
    } catch (e) {
      if (e instanceof PricingModelError) problems = e.problems;
    }
    expect(problems).toEqual([
      "extra: unknown member",
      "format: must be 1",
      "name: letters, digits, `.`, `_` or `-`, at most 100, required",
      "currency: an ISO 4217 code such as EUR, required",
      'platforms.platform_a.instance.prices.vcpus: a non-negative decimal such as "0.025"',
      "platforms.platform_a.instance.prices.gpus: not a dimension of instance (known: vcpus, ram_gb, disk_gb, egress_gb, hours)",
      'platforms.platform_a.instance.prices.ram_gb: a non-negative decimal such as "0.025"',
      "platforms.platform_a.instance.states.active: vcpus has no price",
      "platforms.platform_a.instance.states.active: disk_gb has no price",
      "platforms.platform_a.instance.states.active: vcpus has no price",
      "platforms.platform_a.instance.states.active: a dimension is named twice",
      "platforms.platform_a.instance.states.shutoff: a list of dimensions (empty: the state bills nothing)",
      "platforms.platform_a.router: unknown resource type (known: instance, volume, volume_snapshot, volume_backup, image, floating_ip, loadbalancer)",
    ]);
  });

  test("not YAML, not a mapping", () => {
    expect(() => readPricingModel("a: [")).toThrow(PricingModelError);
    expect(() => readPricingModel("- 1")).toThrow("the document must be a mapping");
  });

  test("the default model uses none of the newer members", () => {
    const volume = defaultModel.platforms.get("platform_a")?.get("volume");
    expect(volume?.member).toBeNull();
    expect(volume?.epochs.length).toBe(1);
    expect(defaultModel.changes).toEqual([]);
    expect(defaultModel.plans).toEqual([]);
  });
});

describe("the example model (docs/pricing-model.md)", () => {
  const model = readPricingModel(exampleText);

  test("reads with every member: attributes, names, a change, plans", () => {
    const volume = model.platforms.get("platform_a")?.get("volume");
    expect(volume?.member).toBe("type");
    expect(volume?.names.get("5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11")).toBe("ssd");
    expect(model.changes).toEqual(["2026-10-16T00:00:00.000Z"]);
    const ssd = volume?.epochs.map((e) => e.values.get("ssd")?.prices.get("size_gb")?.toFixed());
    expect(ssd).toEqual(["0.0002", "0.00022"]);
    // hdd is not changed: it keeps its price; the type's own price is not changed either
    expect(volume?.epochs.map((e) => e.values.get("hdd")?.prices.get("size_gb")?.toFixed())).toEqual([
      "0.00006",
      "0.00006",
    ]);
    expect(model.plans.map((p) => [p.name, p.tiered.length, p.minimums.map((m) => m.scope)])).toEqual([
      ["large-compute", 2, []],
      ["committed", 0, ["platform_a.instance", "platform_a"]],
    ]);
    expect(model.planByProject.get(planKey("cloud-1", "7fe67990fe85b9d5b0b654ae1ccc499b"))?.name).toBe(
      "committed",
    );
  });

  test("a value falls back to the type's prices; a change of the type's price reaches such a value", () => {
    const instance = model.platforms.get("platform_a")?.get("instance");
    const c1 = instance?.epochs.map((e) => e.values.get("c1.large")?.prices);
    expect(c1?.map((p) => [p?.get("vcpus")?.toFixed(), p?.get("ram_gb")?.toFixed()])).toEqual([
      ["0.011", "0.0042"],
      ["0.011", "0.0042"],
    ]);
    const r1 = instance?.epochs.map((e) => e.values.get("r1.large"));
    expect(r1?.map((t) => t?.prices.get("hours")?.toFixed())).toEqual(["0.115", "0.12"]);
    expect(r1?.[0]?.states.get("active")).toEqual(["hours", "egress_gb"]);
    expect(instance?.epochs.map((e) => e.own.prices.get("vcpus")?.toFixed())).toEqual(["0.0125", "0.0135"]);
  });
});

describe("refusals of the newer members, each located", () => {
  test("prices by attribute: an unknown member, value, name or dimension", () => {
    expect(
      problemsOf(
        modelWith(`    instance:
      prices: { vcpus: "0.01" }
      by:
        member: colour
        names: { "42": huge }
        values:
          g1.gpu: { prices: { gpus: "1", hours: "2" }, extra: 1 }
          g2.gpu: { prices: { hours: "2" }, states: { active: [hours, ram_gb] } }
      states: { active: [vcpus] }
    volume_backup:
      prices: { size_gb: "0.1" }
      by: { member: type, values: { ssd: { prices: {} } } }
      states: {}
`),
      ),
    ).toEqual([
      "platforms.platform_a.instance.by.member: the size member prices are chosen by (known for instance: flavor)",
      "platforms.platform_a.instance.by.values.g1.gpu.extra: unknown member",
      "platforms.platform_a.instance.by.values.g1.gpu.prices.gpus: not a dimension of instance (known: vcpus, ram_gb, disk_gb, egress_gb, hours)",
      "platforms.platform_a.instance.by.values.g1.gpu.prices.hours: no state of the type bills it: give the value states of its own",
      "platforms.platform_a.instance.by.values.g2.gpu.states.active: ram_gb has no price",
      "platforms.platform_a.instance.by.names.42: huge is not one of the values",
      "platforms.platform_a.volume_backup.by.member: the size member prices are chosen by (known for volume_backup: none)",
    ]);
  });

  test("price changes: out of order, unknown platforms, types, values and unpriced dimensions", () => {
    expect(
      problemsOf(
        modelWith(
          instanceType,
          `changes:
  - from: "2026-10-16T00:00:00Z"
    platforms:
      platform_a:
        instance: { prices: { disk_gb: "1", vcpus: "0.02" }, values: { c1.large: { vcpus: "1" } } }
        volume: { prices: { size_gb: "1" } }
      platform_b: {}
  - from: "2026-10-10T00:00:00Z"
    platforms: { platform_a: { instance: { prices: { vcpus: "0.03" } } } }
  - from: "tomorrow"
    platforms: {}
  - { from: "2026-11-01T00:00:00+01:00", platforms: { platform_a: { instance: { states: {} } } } }
`,
        ),
      ),
    ).toEqual([
      "changes.0.platforms.platform_a.instance.prices.disk_gb: has no price to change",
      "changes.0.platforms.platform_a.instance.values.c1.large: not a value the type prices by (add it under by.values first)",
      "changes.0.platforms.platform_a.volume: not a resource type the model prices on platform_a",
      "changes.0.platforms.platform_b: not a platform of the model",
      "changes.1.from: after the change before it (2026-10-16T00:00:00.000Z): list changes in time order",
      'changes.2.from: the instant the prices take effect, such as "2026-10-16T00:00:00Z"',
      "changes.3.platforms.platform_a.instance.states: unknown member",
    ]);
  });

  test("plans: projects twice, unknown dimensions and scopes, tiers out of order, bad amounts", () => {
    expect(
      problemsOf(
        modelWith(
          instanceType + volumeType,
          `plans:
  one:
    projects: { cloud-1: [p1, p2] }
    tiered:
      - dimension: platform_a.instance.gpus
        mode: graduated
        tiers: [{ up_to: "10", price: "1" }, { up_to: "5", price: "0.5" }, { price: "0.1", up_to: "20" }]
      - { dimension: platform_a.volume.size_gb, mode: stepped, tiers: [{ price: "0.1" }] }
      - { dimension: platform_a.volume.size_gb, mode: volume, tiers: [{ up_to: "0", price: "1" }, { price: "1" }] }
    minimums:
      - { scope: platform_a.router, amount: "10" }
      - { scope: platform_a, amount: "10.005" }
      - { scope: platform_a.volume, amount: "5" }
      - { scope: platform_a.volume, amount: "6" }
  two:
    projects: { cloud-1: [p2] }
    minimums: [{ scope: platform_b, amount: "1" }]
  three:
    projects: { cloud-1: [p3] }
`,
        ),
      ),
    ).toEqual([
      "plans.one.tiered.0.dimension: <platform>.<resource_type>.<dimension>, such as platform_a.instance.vcpus",
      "plans.one.tiered.0.tiers.1.up_to: above the tier before it (10)",
      "plans.one.tiered.0.tiers.2.up_to: the last tier has no bound: it takes the rest",
      "plans.one.tiered.1.mode: graduated (each unit at its tier's price) or volume (all units at the tier reached)",
      "plans.one.tiered.2.dimension: platform_a.volume.size_gb is tiered twice in the plan",
      "plans.one.tiered.2.tiers.0.up_to: a positive quantity in the dimension's unit",
      "plans.one.minimums.0.scope: <platform> or <platform>.<resource_type> the model prices",
      'plans.one.minimums.1.amount: a non-negative amount in the model\'s currency, such as "500.00"',
      "plans.one.minimums.3.scope: platform_a.volume has a minimum already",
      "plans.two.projects.cloud-1: p2 is billed under plan one already",
      "plans.two.minimums.0.scope: <platform> or <platform>.<resource_type> the model prices",
      "plans.three: a plan with neither tiered dimensions nor minimums bills nothing of its own",
    ]);
  });
});
