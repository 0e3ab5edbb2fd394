import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolvePlans, scenarioModelPath, scenarioModelText } from "../harness/scenario/pricing-plan.ts";
import { gardenCloud } from "../harness/scenario/registry-plan.ts";
import { readPricingModel } from "../lib/billing/pricing/pricing-model.ts";
import { readOraclePrices } from "../lib/billing/simulator/oracle-bill/oracle-prices.ts";
import pricing from "./pricing.ts";

const project = (id: string, cloud: string, external_id: string, platform = "platform_a") => ({
  id,
  platform,
  cloud,
  external_id,
});

/** A registry as the simulator registers a month: classic tenants, two managers and their tenants. */
const registry = {
  projects: [
    project("1", "cloud-1", "ffff"),
    project("2", "cloud-1", "aaaa"),
    project("3", "cloud-1", "cccc"),
    project("4", "cloud-1", "bbbb"),
    project("5", "cloud-1", "0000"), // alpha's infrastructure tenant: not a classic tenant
    project("6", gardenCloud, "alpha"),
    project("7", gardenCloud, "beta"),
  ],
  relations: [
    {
      id: "r1",
      source_id: "6",
      target_id: "5",
      relation_type: "infrastructure_tenant",
      metadata: {},
      valid_from: "2026-10-01T00:00:00.000Z",
      valid_to: null,
    },
  ],
};

describe("a scenario's own pricing model (decision 544)", () => {
  const config = pricing.pricing;
  if (config === undefined || typeof config === "function")
    throw new Error("the pricing scenario declares a model file");

  test("plans name the month's projects: classic tenants by external id, a manager in the garden cloud", () => {
    expect(resolvePlans(config, registry, "cloud-1")).toMatchObject({
      "tiered-compute": { projects: { "cloud-1": ["aaaa"] } },
      "bulk-storage": { projects: { "cloud-1": ["bbbb"] } },
      cluster: { projects: { [gardenCloud]: ["alpha"] } },
      committed: { projects: { "cloud-1": ["cccc"] } },
      "committed-low": { projects: { "cloud-1": ["ffff"] } },
    });
  });

  test("the model written for a run is one the engine and the oracle both read, plans and all", () => {
    const text = scenarioModelText(
      readFileSync(scenarioModelPath(config), "utf8"),
      resolvePlans(config, registry, "cloud-1"),
    );
    const model = readPricingModel(text);
    expect(model.plans.map((p) => p.name)).toEqual(config.plans.map((p) => p.name));
    expect(model.changes).toEqual(["2026-10-16T13:30:00.000Z"]);
    const oracle = readOraclePrices(text);
    expect(oracle.plans.map((p) => [p.name, p.tiered.length, p.minimums.length])).toEqual(
      config.plans.map((p) => [p.name, p.tiered?.length ?? 0, p.minimums?.length ?? 0]),
    );
  });

  test("the model file as it stands, without plans, is a valid model", () => {
    expect(readPricingModel(readFileSync(scenarioModelPath(config), "utf8")).plans).toEqual([]);
  });

  test("a plan naming a tenant the month does not have is refused by name", () => {
    const wide = { ...config, plans: [{ name: "x", projects: [{ tenant: 9 }] }] };
    expect(() => resolvePlans(wide, registry, "cloud-1")).toThrow('{"tenant":9}, which is not there');
  });
});
