import { createHash } from "node:crypto";
import { isYamlMap as isMap, readFailsafeYaml } from "../../foundation/yaml/failsafe-yaml.ts";
import { type Plan, readPlans } from "./plans.ts";
import { readPriceChanges } from "./price-changes.ts";
import { type ReadTypePricing, readTypePricing, type TypePricing } from "./type-pricing.ts";

/**
 * The pricing model (docs/pricing-model.md): prices per platform, resource type and dimension, chosen
 * by an attribute where the model says so, which states bill which dimensions, dated price changes,
 * plans (tiers and minimum commitments) and one currency. Read with YAML's failsafe schema, so every
 * scalar stays the text that was written and a price never passes through a float.
 */
const pricingModelFormat = 1;

export interface PricingModel {
  name: string;
  currency: string;
  /** platform → resource type → pricing */
  platforms: ReadonlyMap<string, ReadonlyMap<string, TypePricing>>;
  /** The instants prices change at, in time order (canonical): a month is split at those inside it. */
  changes: readonly string[];
  plans: readonly Plan[];
  /** The plan a statement's project is billed under, by (cloud, project external id). */
  planByProject: ReadonlyMap<string, Plan>;
  /** SHA-256 of the document as written: two documents under one name are told apart by it. */
  digest: string;
  /** The document as written, stored with a run so that a correction rates with exactly it. */
  text: string;
}

export class PricingModelError extends Error {
  constructor(readonly problems: string[]) {
    super(`the pricing model is not valid: ${problems.join("; ")}`);
    this.name = "PricingModelError";
  }
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const currencyPattern = /^[A-Z]{3}$/;
const keyPattern = /^[a-z0-9_][a-z0-9_.-]{0,99}$/;

/** Key of a plan's project in `planByProject`. */
export const planKey = (cloud: string, projectId: string) => `${cloud}\u0000${projectId}`;

/** Reads and validates a pricing model; every problem is reported at once, located by its path. */
export function readPricingModel(text: string): PricingModel {
  const doc = readFailsafeYaml(text, (problem) => new PricingModelError([problem]));
  const problems: string[] = [];
  if (!isMap(doc)) throw new PricingModelError(["the document must be a mapping"]);
  for (const key of Object.keys(doc)) {
    if (!["format", "name", "currency", "platforms", "changes", "plans"].includes(key))
      problems.push(`${key}: unknown member`);
  }
  if (doc.format !== String(pricingModelFormat)) {
    problems.push(`format: must be ${pricingModelFormat}`);
  }
  const name = typeof doc.name === "string" && namePattern.test(doc.name) ? doc.name : "";
  if (name === "") problems.push("name: letters, digits, `.`, `_` or `-`, at most 100, required");
  const currency = typeof doc.currency === "string" && currencyPattern.test(doc.currency) ? doc.currency : "";
  if (currency === "") problems.push("currency: an ISO 4217 code such as EUR, required");

  const read = new Map<string, Map<string, ReadTypePricing>>();
  if (!isMap(doc.platforms) || Object.keys(doc.platforms).length === 0) {
    problems.push("platforms: a mapping of at least one platform, required");
  } else {
    for (const [platform, types] of Object.entries(doc.platforms)) {
      const at = `platforms.${platform}`;
      if (!keyPattern.test(platform)) problems.push(`${at}: not a platform name`);
      if (!isMap(types)) {
        problems.push(`${at}: a mapping of resource types`);
        continue;
      }
      const byType = new Map<string, ReadTypePricing>();
      for (const [resourceType, pricing] of Object.entries(types)) {
        const typeRead = readTypePricing(`${at}.${resourceType}`, resourceType, pricing, problems);
        if (typeRead) byType.set(resourceType, typeRead);
      }
      read.set(platform, byType);
    }
  }
  const changes = readPriceChanges(doc.changes, read, problems);
  const plans = readPlans(doc.plans, read, problems);
  if (problems.length > 0) throw new PricingModelError(problems);
  const planByProject = new Map<string, Plan>();
  for (const plan of plans)
    for (const [cloud, ids] of plan.projects)
      for (const id of ids) planByProject.set(planKey(cloud, id), plan);
  return {
    name,
    currency,
    platforms: new Map(
      [...read].map(([platform, byType]) => [
        platform,
        new Map([...byType].map(([type, r]) => [type, r.pricing])),
      ]),
    ),
    changes,
    plans,
    planByProject,
    digest: createHash("sha256").update(text).digest("hex"),
    text,
  };
}

export function typePricing(model: PricingModel, platform: string, resourceType: string): TypePricing | null {
  return model.platforms.get(platform)?.get(resourceType) ?? null;
}
