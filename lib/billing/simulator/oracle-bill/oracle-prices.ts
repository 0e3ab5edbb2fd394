import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isYamlMap, readFailsafeYaml, type YamlNode } from "../../../foundation/yaml/failsafe-yaml.ts";
import { type Exact, exactOf } from "./exact.ts";

/** What one platform's resource type costs, as the oracle reads the pricing model. */
export interface OracleTypePrices {
  /** Per dimension, the price of one unit (a unit-hour, or a GiB of a counter). */
  prices: ReadonlyMap<string, Exact>;
  /** Per state, the dimensions it bills; a state not named bills nothing. */
  states: ReadonlyMap<string, readonly string[]>;
}

/** The pricing model as the oracle reads it (decision 454): its currency and prices, nothing of the engine's. */
export interface OraclePrices {
  name: string;
  currency: string;
  /** Keyed `<platform>\0<resource type>`; a type not here is not priced. */
  types: ReadonlyMap<string, OracleTypePrices>;
}

export const typeKey = (platform: string, resourceType: string) => `${platform}\u0000${resourceType}`;

const plainDecimal = /^\d+(\.\d+)?$/;

function fail(path: string, what: string): never {
  throw new ValidationError(`the pricing model's ${path} ${what}`);
}

function mapAt(node: YamlNode | undefined, path: string): Record<string, YamlNode> {
  if (!isYamlMap(node)) fail(path, "is not a mapping");
  return node;
}

function textAt(node: YamlNode | undefined, path: string): string {
  if (typeof node !== "string") fail(path, "is not a scalar");
  return node;
}

function typePrices(node: YamlNode | undefined, path: string): OracleTypePrices {
  const doc = mapAt(node, path);
  for (const member of Object.keys(doc))
    if (member !== "prices" && member !== "states")
      fail(`${path}.${member}`, "is a member the oracle does not price");
  const prices = new Map<string, Exact>();
  for (const [dimension, price] of Object.entries(mapAt(doc.prices, `${path}.prices`))) {
    const text = textAt(price, `${path}.prices.${dimension}`);
    if (!plainDecimal.test(text)) fail(`${path}.prices.${dimension}`, "is not a plain decimal");
    prices.set(dimension, exactOf(text));
  }
  const states = new Map<string, string[]>();
  for (const [state, list] of Object.entries(mapAt(doc.states, `${path}.states`))) {
    if (!Array.isArray(list)) fail(`${path}.states.${state}`, "is not a list");
    states.set(
      state,
      list.map((d, i) => textAt(d, `${path}.states.${state}.${i}`)),
    );
  }
  return { prices, states };
}

/**
 * Reads a pricing model file (docs/pricing-model.md) for the oracle: YAML's failsafe schema, so a price
 * stays the text that was written; the currency, and per platform and resource type its prices and the
 * dimensions each state bills. It trusts the engine to have refused a model that breaks the format's
 * rules and refuses only what it cannot read, or a member it does not know how to price.
 */
export function readOraclePrices(text: string): OraclePrices {
  const doc = mapAt(
    readFailsafeYaml(text, (problem) => new ValidationError(`the pricing model is ${problem}`)),
    "document",
  );
  for (const member of Object.keys(doc))
    if (!["format", "name", "currency", "platforms"].includes(member))
      fail(member, "is a member the oracle does not price");
  const types = new Map<string, OracleTypePrices>();
  for (const [platform, byType] of Object.entries(mapAt(doc.platforms, "platforms")))
    for (const [resourceType, node] of Object.entries(mapAt(byType, `platforms.${platform}`)))
      types.set(typeKey(platform, resourceType), typePrices(node, `platforms.${platform}.${resourceType}`));
  return {
    name: textAt(doc.name, "name"),
    currency: textAt(doc.currency, "currency"),
    types,
  };
}
