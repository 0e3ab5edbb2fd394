import type { Decimal } from "../../foundation/money/decimal.ts";
import { readInstant } from "../../foundation/time/instant.ts";
import { isYamlMap as isMap, type YamlNode as Node } from "../../foundation/yaml/failsafe-yaml.ts";
import { epochOf, type ReadTypePricing, readPrices, unknownMembers } from "./type-pricing.ts";

/**
 * Price changes (docs/pricing-model.md#price-changes): a list of dated changes, each in effect from its
 * instant until the next. A change sets new prices for dimensions that already have one (a type's, or
 * an attribute value's); everything it does not name keeps the price before it, and which states bill
 * which dimensions never changes. Each change adds a period (`TypeEpoch`) to every type of the model,
 * so an interval is priced by the period its start lies in, once the engine split it at the change.
 */
export function readPriceChanges(
  node: Node | undefined,
  types: ReadonlyMap<string, ReadonlyMap<string, ReadTypePricing>>,
  problems: string[],
): string[] {
  if (node === undefined) return [];
  if (!Array.isArray(node)) {
    problems.push("changes: a list of price changes, each with from and platforms");
    return [];
  }
  const instants: string[] = [];
  node.forEach((change, index) => {
    const at = `changes.${index}`;
    if (!isMap(change)) {
      problems.push(`${at}: a mapping with from and platforms`);
      return;
    }
    unknownMembers(at, change, ["from", "platforms"], problems);
    const reading = typeof change.from === "string" ? readInstant(change.from) : null;
    if (reading === null || !reading.ok) {
      problems.push(`${at}.from: the instant the prices take effect, such as "2026-10-16T00:00:00Z"`);
      return;
    }
    const from = reading.instant;
    const last = instants.at(-1);
    if (last !== undefined && from <= last) {
      problems.push(`${at}.from: after the change before it (${last}): list changes in time order`);
      return;
    }
    instants.push(from);
    const named = readChange(`${at}.platforms`, change.platforms, types, problems);
    for (const [platform, byType] of types) {
      for (const [resourceType, read] of byType) {
        // Every type gets the period, so an interval's period is found by its start alone; each period
        // has maps of its own, so none changes the prices of the one before it.
        const set = named.get(platform)?.get(resourceType);
        const before = read.own;
        read.own = {
          type: new Map([...before.type, ...(set?.prices ?? [])]),
          values: new Map(
            [...before.values].map(([v, p]) => [v, new Map([...p, ...(set?.values.get(v) ?? [])])]),
          ),
        };
        read.pricing.epochs.push(epochOf(from, read.own, read.pricing.states, read.valueStates));
      }
    }
  });
  return instants;
}

interface ChangedPrices {
  prices: Map<string, Decimal>;
  values: Map<string, Map<string, Decimal>>;
}

function readChange(
  at: string,
  node: Node | undefined,
  types: ReadonlyMap<string, ReadonlyMap<string, ReadTypePricing>>,
  problems: string[],
): Map<string, Map<string, ChangedPrices>> {
  const out = new Map<string, Map<string, ChangedPrices>>();
  if (!isMap(node) || Object.keys(node).length === 0) {
    problems.push(`${at}: a mapping of platforms to the prices that change, required`);
    return out;
  }
  for (const [platform, byType] of Object.entries(node)) {
    const here = `${at}.${platform}`;
    const known = types.get(platform);
    if (known === undefined) {
      problems.push(`${here}: not a platform of the model`);
      continue;
    }
    if (!isMap(byType)) {
      problems.push(`${here}: a mapping of resource types`);
      continue;
    }
    const ofPlatform = new Map<string, ChangedPrices>();
    out.set(platform, ofPlatform);
    for (const [resourceType, changed] of Object.entries(byType)) {
      const typeAt = `${here}.${resourceType}`;
      const read = known.get(resourceType);
      if (read === undefined) {
        problems.push(`${typeAt}: not a resource type the model prices on ${platform}`);
        continue;
      }
      if (!isMap(changed)) {
        problems.push(`${typeAt}: a mapping with prices and values`);
        continue;
      }
      unknownMembers(typeAt, changed, ["prices", "values"], problems);
      const prices =
        changed.prices === undefined
          ? new Map()
          : readPrices(`${typeAt}.prices`, resourceType, changed.prices, problems);
      for (const d of prices.keys()) {
        if (!read.own.type.has(d)) problems.push(`${typeAt}.prices.${d}: has no price to change`);
      }
      const values = new Map<string, Map<string, Decimal>>();
      if (changed.values !== undefined) {
        if (!isMap(changed.values)) problems.push(`${typeAt}.values: a mapping of value to its prices`);
        else {
          for (const [value, valuePrices] of Object.entries(changed.values)) {
            const valueAt = `${typeAt}.values.${value}`;
            const own = read.own.values.get(value);
            if (own === undefined) {
              problems.push(`${valueAt}: not a value the type prices by (add it under by.values first)`);
              continue;
            }
            const set = readPrices(valueAt, resourceType, valuePrices, problems);
            for (const d of set.keys()) {
              if (!own.has(d) && !read.own.type.has(d))
                problems.push(`${valueAt}.${d}: has no price to change`);
            }
            values.set(value, set);
          }
        }
      }
      ofPlatform.set(resourceType, { prices, values });
    }
  }
  return out;
}
