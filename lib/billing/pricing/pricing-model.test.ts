import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { PricingModelError, readPricingModel } from "./pricing-model.ts";

const defaultModel = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);

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
      "platforms.platform_a.instance.prices.gpus: not a dimension of instance (known: vcpus, ram_gb, disk_gb, egress_gb)",
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
});
