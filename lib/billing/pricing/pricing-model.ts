import { createHash } from "node:crypto";
import { type Decimal, decimal } from "../../foundation/money/decimal.ts";
import {
  isYamlMap as isMap,
  type YamlNode as Node,
  readFailsafeYaml,
} from "../../foundation/yaml/failsafe-yaml.ts";
import { dimensionCatalog, dimensionOf } from "./dimensions.ts";

/**
 * The pricing model (docs/pricing-model.md): prices per platform, resource type and dimension, which
 * states bill which dimensions, and one currency. Read with YAML's failsafe schema, so every scalar
 * stays the text that was written and a price never passes through a float.
 */
const pricingModelFormat = 1;

interface TypePricing {
  /** Price per unit of the dimension (per unit-hour, or per GiB for a counter). */
  prices: ReadonlyMap<string, Decimal>;
  /** Dimensions each state bills; a state not named bills nothing (and is a metering warning). */
  states: ReadonlyMap<string, readonly string[]>;
}

export interface PricingModel {
  name: string;
  currency: string;
  /** platform → resource type → pricing */
  platforms: ReadonlyMap<string, ReadonlyMap<string, TypePricing>>;
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
const pricePattern = /^\d{1,9}(\.\d{1,10})?$/;
const keyPattern = /^[a-z0-9_][a-z0-9_.-]{0,99}$/;

/** Reads and validates a pricing model; every problem is reported at once, located by its path. */
export function readPricingModel(text: string): PricingModel {
  const doc = readFailsafeYaml(text, (problem) => new PricingModelError([problem]));
  const problems: string[] = [];
  if (!isMap(doc)) throw new PricingModelError(["the document must be a mapping"]);
  for (const key of Object.keys(doc)) {
    if (!["format", "name", "currency", "platforms"].includes(key)) problems.push(`${key}: unknown member`);
  }
  if (doc.format !== String(pricingModelFormat)) {
    problems.push(`format: must be ${pricingModelFormat}`);
  }
  const name = typeof doc.name === "string" && namePattern.test(doc.name) ? doc.name : "";
  if (name === "") problems.push("name: letters, digits, `.`, `_` or `-`, at most 100, required");
  const currency = typeof doc.currency === "string" && currencyPattern.test(doc.currency) ? doc.currency : "";
  if (currency === "") problems.push("currency: an ISO 4217 code such as EUR, required");

  const platforms = new Map<string, Map<string, TypePricing>>();
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
      const byType = new Map<string, TypePricing>();
      for (const [resourceType, pricing] of Object.entries(types)) {
        const read = readTypePricing(`${at}.${resourceType}`, resourceType, pricing, problems);
        if (read) byType.set(resourceType, read);
      }
      platforms.set(platform, byType);
    }
  }
  if (problems.length > 0) throw new PricingModelError(problems);
  return {
    name,
    currency,
    platforms,
    digest: createHash("sha256").update(text).digest("hex"),
    text,
  };
}

function readTypePricing(
  at: string,
  resourceType: string,
  node: Node,
  problems: string[],
): TypePricing | null {
  if (dimensionCatalog[resourceType] === undefined) {
    problems.push(`${at}: unknown resource type (known: ${Object.keys(dimensionCatalog).join(", ")})`);
    return null;
  }
  if (!isMap(node)) {
    problems.push(`${at}: a mapping with prices and states`);
    return null;
  }
  for (const key of Object.keys(node)) {
    if (key !== "prices" && key !== "states") problems.push(`${at}.${key}: unknown member`);
  }
  const prices = new Map<string, Decimal>();
  if (!isMap(node.prices)) problems.push(`${at}.prices: a mapping of dimension to price, required`);
  else {
    for (const [dimension, price] of Object.entries(node.prices)) {
      if (dimensionOf(resourceType, dimension) === undefined) {
        const known = Object.keys(dimensionCatalog[resourceType] ?? {}).join(", ");
        problems.push(`${at}.prices.${dimension}: not a dimension of ${resourceType} (known: ${known})`);
      } else if (typeof price !== "string" || !pricePattern.test(price)) {
        problems.push(`${at}.prices.${dimension}: a non-negative decimal such as "0.025"`);
      } else prices.set(dimension, decimal(price));
    }
  }
  const states = new Map<string, string[]>();
  if (!isMap(node.states)) problems.push(`${at}.states: a mapping of state to billed dimensions, required`);
  else {
    for (const [state, dims] of Object.entries(node.states)) {
      const here = `${at}.states.${state}`;
      if (!Array.isArray(dims) || dims.some((d) => typeof d !== "string")) {
        problems.push(`${here}: a list of dimensions (empty: the state bills nothing)`);
        continue;
      }
      const list = dims as string[];
      for (const d of list) {
        if (!prices.has(d) && isMap(node.prices)) problems.push(`${here}: ${d} has no price`);
      }
      if (new Set(list).size !== list.length) problems.push(`${here}: a dimension is named twice`);
      states.set(state, list);
    }
  }
  return { prices, states };
}

export function typePricing(model: PricingModel, platform: string, resourceType: string): TypePricing | null {
  return model.platforms.get(platform)?.get(resourceType) ?? null;
}
