import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { Tariff, TypeEpoch, TypePricing } from "./type-pricing.ts";

/**
 * Which prices an interval is billed at (docs/pricing-model.md#prices-by-attribute, #price-changes):
 * the price period its start lies in, then the value of the type's attribute member in its size (a
 * carried value named through the model's `names`), falling back to the type's own prices.
 */

/** The price period in effect at `ms`: the last one starting at or before it. */
export function epochAt(pricing: TypePricing, ms: number): TypeEpoch {
  const epochs = pricing.epochs;
  let i = epochs.length - 1;
  while (i > 0 && (epochs[i] as TypeEpoch).fromMs > ms) i--;
  return epochs[i] as TypeEpoch;
}

/** The attribute value of a size as the model names it, or null when the type prices by none. */
export function attributeOf(pricing: TypePricing, size: JsonObject | null): string | null {
  if (pricing.member === null) return null;
  const carried = size?.[pricing.member];
  if (typeof carried !== "string") return null;
  return pricing.names.get(carried) ?? carried;
}

export function tariffAt(pricing: TypePricing, ms: number, size: JsonObject | null): Tariff {
  const epoch = epochAt(pricing, ms);
  if (pricing.member === null) return epoch.own;
  const value = attributeOf(pricing, size);
  return (value === null ? undefined : epoch.values.get(value)) ?? epoch.own;
}

/**
 * Intervals split at each of `instants` (canonical, ascending) that falls strictly inside one, so that
 * every part lies in one price period. Half-open parts keep every other member. Counter readings
 * belong to the whole interval and cannot be split: the engine splits before it reads counters
 * (`meterResource`), so an interval that carries them and crosses an instant is a caller's mistake.
 */
export function splitAt<T extends { from: string; to: string; counters?: unknown }>(
  intervals: readonly T[],
  instants: readonly string[],
): T[] {
  if (instants.length === 0) return intervals as T[];
  const out: T[] = [];
  for (const interval of intervals) {
    let from = interval.from;
    for (const at of instants) {
      if (at <= from || at >= interval.to) continue;
      if (interval.counters !== undefined)
        throw new Error(`an interval with counter readings crosses the price change at ${at}`);
      out.push({ ...interval, from, to: at });
      from = at;
    }
    out.push(from === interval.from ? interval : { ...interval, from });
  }
  return out;
}
