import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { over } from "../../lib/billing/simulator/oracle-bill/exact.ts";
import { oracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../../lib/billing/simulator/oracle-bill/oracle-prices.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import type { Prng } from "../../lib/foundation/random/prng.ts";
import { isYamlMap, readFailsafeYaml, type YamlNode } from "../../lib/foundation/yaml/failsafe-yaml.ts";
import { reduced } from "./edges-arithmetic.ts";

/** One resource type of a pricing model: its prices and the dimensions each state bills. */
interface TypeModel {
  prices: Record<string, string>;
  states: Record<string, string[]>;
}

/** A pricing model of the default's shape (docs/pricing-model.md): prices and states only. */
export interface PricingDocument {
  format: string;
  name: string;
  currency: string;
  platforms: Record<string, Record<string, TypeModel>>;
}

/** What the money-edges month's prices were drawn to show. */
export interface DrawnPricing {
  document: PricingDocument;
  /** The resource type left unpriced. */
  unpricedType: string;
  /** The instance state left out of the states. */
  unpricedState: string;
  /** The price made to land a line on half a cent: `<type>.<dimension>` and the resource. */
  tie: { price: string; resource: string } | null;
}

const map = (node: YamlNode | undefined, what: string): Record<string, YamlNode> => {
  if (!isYamlMap(node)) throw new Error(`the default pricing model's ${what} is not a mapping`);
  return node;
};
const text = (node: YamlNode | undefined, what: string): string => {
  if (typeof node !== "string") throw new Error(`the default pricing model's ${what} is not a scalar`);
  return node;
};

/** Reads the shipped default model (prices and states only, as it is written). */
export function readPricingDocument(yaml: string): PricingDocument {
  const doc = map(
    readFailsafeYaml(yaml, (problem) => new Error(`the default pricing model is ${problem}`)),
    "document",
  );
  const platforms: PricingDocument["platforms"] = {};
  for (const [platform, types] of Object.entries(map(doc.platforms, "platforms"))) {
    platforms[platform] = {};
    for (const [type, node] of Object.entries(map(types, platform))) {
      const t = map(node, `${platform}.${type}`);
      const prices = Object.fromEntries(
        Object.entries(map(t.prices, `${type}.prices`)).map(([d, p]) => [d, text(p, `${type}.${d}`)]),
      );
      const states = Object.fromEntries(
        Object.entries(map(t.states, `${type}.states`)).map(([s, list]) => [
          s,
          Array.isArray(list) ? list.map((d) => text(d, `${type}.${s}`)) : [],
        ]),
      );
      (platforms[platform] as Record<string, TypeModel>)[type] = { prices, states };
    }
  }
  return {
    format: text(doc.format, "format"),
    name: text(doc.name, "name"),
    currency: text(doc.currency, "currency"),
    platforms,
  };
}

/** The model as YAML the engine and the oracle read (failsafe: every scalar quoted or plain text). */
export function pricingYaml(document: PricingDocument, comment: string): string {
  const out = [`# ${comment}`, `format: ${document.format}`, `name: ${document.name}`];
  out.push(`currency: ${document.currency}`, "platforms:");
  for (const [platform, types] of Object.entries(document.platforms)) {
    out.push(`  ${platform}:`);
    for (const [type, model] of Object.entries(types)) {
      out.push(`    ${type}:`, "      prices:");
      for (const [d, p] of Object.entries(model.prices)) out.push(`        ${d}: "${p}"`);
      out.push("      states:");
      for (const [s, list] of Object.entries(model.states)) out.push(`        ${s}: [${list.join(", ")}]`);
    }
  }
  return `${out.join("\n")}\n`;
}

/** Price units of a model: ten places at most (docs/pricing-model.md), as an integer of 1e-10. */
const priceScale = 10n ** 10n;

function priceText(units: bigint): string {
  const whole = units / priceScale;
  const fraction = (units % priceScale).toString().padStart(10, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

function priceUnits(price: string): bigint {
  const [whole = "0", fraction = ""] = price.split(".");
  return BigInt(whole) * priceScale + BigInt(fraction.padEnd(10, "0"));
}

/**
 * The price of ten places nearest `current` (within half to twice it) at which a line of `quantity`
 * units costs exactly half a cent more than a whole cent: `quantity × price × 100` an odd half.
 * With quantity n/d the amount in half-cents is `2 × 100 × n × P / (d × 10^10)` for P units of
 * 1e-10: reduced to a/b it is odd exactly when b divides P, a is odd and P/b is odd. Null when no
 * such price lies near the current one (a quantity of random milliseconds needs an absurd price).
 */
export function tiePrice(quantity: { n: bigint; d: bigint }, current: string): string | null {
  const { n: a, d: b } = reduced(200n * quantity.n, quantity.d * priceScale);
  if (a % 2n === 0n || a <= 0n) return null;
  const p0 = priceUnits(current);
  let t = p0 / b;
  if (t % 2n === 0n) t += 1n;
  for (const candidate of [t, t - 2n, t + 2n]) {
    const units = b * candidate;
    if (candidate >= 1n && units * 2n >= p0 && units <= p0 * 2n) return priceText(units);
  }
  return null;
}

/** Types a month may leave unpriced: any but the two every statement bills. */
const unpriceable = ["image", "floating_ip", "loadbalancer", "volume_snapshot", "volume_backup"];

/**
 * The money-edges month's prices (decision 546), from the default model: one resource type the month
 * holds is left unpriced, one instance state the month's instances pass through is left out of the
 * states, and one price is moved (within half to twice itself) so that a line of the month lands on
 * exactly half a cent, preferring a line the held share moves (its quantity differs in the finalized
 * run's reading of the month, decision 548), whose credit-note delta then lands on the tie.
 */
export function drawPricing(options: {
  defaultPricing: string;
  oracle: Oracle;
  /** The month as the finalized run reads it, without the held share. */
  finalized: Oracle;
  rng: Prng;
  name: string;
}): DrawnPricing {
  const { oracle, rng } = options;
  const document = readPricingDocument(options.defaultPricing);
  document.name = options.name;
  const types = document.platforms.platform_a ?? {};
  const present = new Set(oracle.resources.filter((r) => r.intervals.length > 0).map((r) => r.resource_type));
  const unpricedType = rng.pick(unpriceable.filter((t) => present.has(t) && types[t] !== undefined));
  delete types[unpricedType];
  const instanceStates = new Set(
    oracle.resources
      .filter((r) => r.resource_type === "instance")
      .flatMap((r) => r.intervals.map((i) => i.state)),
  );
  const instance = types.instance as TypeModel;
  const unpricedState = rng.pick(
    Object.keys(instance.states)
      .filter((s) => s !== "active" && instanceStates.has(s) && (instance.states[s]?.length ?? 0) > 0)
      .sort(compare),
  );
  delete instance.states[unpricedState];
  const draft = readOraclePrices(pricingYaml(document, "draft"));
  const bill = oracleBill(oracle, draft);
  const before = oracleBill(options.finalized, draft);
  const moves = (resource: string, line: { project_id: string; dimension: string; quantity: string }) =>
    before.resources
      .get(resource)
      ?.lines.find((l) => l.project_id === line.project_id && l.dimension === line.dimension)?.quantity !==
    line.quantity;
  const candidates: { price: string; resource: string; type: string; dimension: string; moves: boolean }[] =
    [];
  for (const [resource, rating] of bill.resources) {
    const type = resource.slice(0, resource.indexOf("/"));
    for (const line of rating.lines) {
      const current = types[type]?.prices[line.dimension];
      const price = current === undefined ? null : tiePrice(over(line.usage, line.unit), current);
      if (price !== null)
        candidates.push({
          price,
          resource,
          type,
          dimension: line.dimension,
          moves: moves(resource, line),
        });
    }
  }
  const preferred = candidates.some((c) => c.moves) ? candidates.filter((c) => c.moves) : candidates;
  const tie = preferred.length === 0 ? null : rng.pick(preferred);
  if (tie !== null) (types[tie.type] as TypeModel).prices[tie.dimension] = tie.price;
  return {
    document,
    unpricedType,
    unpricedState,
    tie: tie === null ? null : { price: `${tie.type}.${tie.dimension} ${tie.price}`, resource: tie.resource },
  };
}
