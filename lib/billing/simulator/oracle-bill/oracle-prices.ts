import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { readFailsafeYaml, type YamlNode } from "../../../foundation/yaml/failsafe-yaml.ts";
import type { Exact } from "./exact.ts";
import { type OraclePlan, readOraclePlans } from "./oracle-plans.ts";
import { decimalAt, fail, listAt, mapAt, textAt } from "./oracle-yaml.ts";

/** A price as set from an instant on (the model's own prices from the beginning of time). */
interface PriceSet {
  fromMs: number;
  price: Exact;
}

/**
 * What one platform's resource type costs, as the oracle reads the pricing model: per dimension, the
 * prices set on it over time, the type's and each attribute value's apart, so that a value follows the
 * type's price until it sets one of its own (docs/pricing-model.md#price-changes).
 */
export interface OracleTypePrices {
  /** The size member prices are chosen by, or null. */
  member: string | null;
  /** A member's value as events carry it → the value it is priced as. */
  names: ReadonlyMap<string, string>;
  /** The values priced on their own. */
  values: ReadonlySet<string>;
  /** Per state, the dimensions it bills; a state not named bills nothing. */
  states: ReadonlyMap<string, readonly string[]>;
  /** A value's states where it gives its own. */
  valueStates: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
  /** Keyed `<value>\0<dimension>` (the type's own: an empty value), each in time order. */
  sets: ReadonlyMap<string, readonly PriceSet[]>;
}

/** The pricing model as the oracle reads it (decision 454): its currency and prices, nothing of the engine's. */
export interface OraclePrices {
  name: string;
  currency: string;
  /** Keyed `<platform>\0<resource type>`; a type not here is not priced. */
  types: ReadonlyMap<string, OracleTypePrices>;
  /** The instants prices change at (epoch ms, ascending). */
  changes: readonly number[];
  plans: readonly OraclePlan[];
}

export const typeKey = (platform: string, resourceType: string) => `${platform}\u0000${resourceType}`;
const setKey = (value: string | null, dimension: string) => `${value ?? ""}\u0000${dimension}`;

/** The value a size is priced as: its member's value, named through `names`, when the type prices it. */
export function pricedValue(
  pricing: OracleTypePrices,
  size: Readonly<Record<string, unknown>>,
): string | null {
  if (pricing.member === null) return null;
  const carried = size[pricing.member];
  if (typeof carried !== "string") return null;
  const value = pricing.names.get(carried) ?? carried;
  return pricing.values.has(value) ? value : null;
}

/** The states a value (null: none) bills by. */
export function statesOf(pricing: OracleTypePrices, value: string | null) {
  return (value === null ? undefined : pricing.valueStates.get(value)) ?? pricing.states;
}

function lastSetAt(sets: readonly PriceSet[] | undefined, ms: number): Exact | undefined {
  let found: Exact | undefined;
  for (const s of sets ?? []) if (s.fromMs <= ms) found = s.price;
  return found;
}

/**
 * The price of a dimension at an instant for a value (null: the type's own): the last price the value
 * set on it at or before the instant, else the type's.
 */
export function priceAt(
  pricing: OracleTypePrices,
  value: string | null,
  dimension: string,
  ms: number,
): Exact | undefined {
  const own = value === null ? undefined : lastSetAt(pricing.sets.get(setKey(value, dimension)), ms);
  return own ?? lastSetAt(pricing.sets.get(setKey(null, dimension)), ms);
}

function onlyMembers(doc: Record<string, YamlNode>, path: string, known: readonly string[]) {
  for (const member of Object.keys(doc))
    if (!known.includes(member))
      fail(path === "" ? member : `${path}.${member}`, "is a member the oracle does not price");
}

function addSets(
  sets: Map<string, PriceSet[]>,
  value: string | null,
  node: YamlNode | undefined,
  path: string,
  fromMs: number,
) {
  for (const [dimension, price] of Object.entries(mapAt(node, path))) {
    const key = setKey(value, dimension);
    sets.set(key, [...(sets.get(key) ?? []), { fromMs, price: decimalAt(price, `${path}.${dimension}`) }]);
  }
}

function readStates(node: YamlNode | undefined, path: string): Map<string, string[]> {
  const states = new Map<string, string[]>();
  for (const [state, list] of Object.entries(mapAt(node, path)))
    states.set(
      state,
      listAt(list, `${path}.${state}`).map((d, i) => textAt(d, `${path}.${state}.${i}`)),
    );
  return states;
}

interface ReadType extends OracleTypePrices {
  sets: Map<string, PriceSet[]>;
}

function typePrices(node: YamlNode | undefined, path: string): ReadType {
  const doc = mapAt(node, path);
  onlyMembers(doc, path, ["prices", "states", "by"]);
  const sets = new Map<string, PriceSet[]>();
  addSets(sets, null, doc.prices, `${path}.prices`, Number.NEGATIVE_INFINITY);
  const read: ReadType = {
    member: null,
    names: new Map(),
    values: new Set(),
    states: readStates(doc.states, `${path}.states`),
    valueStates: new Map(),
    sets,
  };
  if (doc.by === undefined) return read;
  const by = mapAt(doc.by, `${path}.by`);
  onlyMembers(by, `${path}.by`, ["member", "names", "values"]);
  const names = new Map<string, string>();
  for (const [carried, name] of Object.entries(
    by.names === undefined ? {} : mapAt(by.names, `${path}.by.names`),
  ))
    names.set(carried, textAt(name, `${path}.by.names.${carried}`));
  const valueStates = new Map<string, Map<string, string[]>>();
  for (const [value, priced] of Object.entries(mapAt(by.values, `${path}.by.values`))) {
    const at = `${path}.by.values.${value}`;
    const doc = mapAt(priced, at);
    onlyMembers(doc, at, ["prices", "states"]);
    if (doc.prices !== undefined) addSets(sets, value, doc.prices, `${at}.prices`, Number.NEGATIVE_INFINITY);
    if (doc.states !== undefined) valueStates.set(value, readStates(doc.states, `${at}.states`));
  }
  return {
    ...read,
    member: textAt(by.member, `${path}.by.member`),
    names,
    values: new Set(Object.keys(mapAt(by.values, `${path}.by.values`))),
    valueStates,
  };
}

/** Each change's prices added to the types' price sets, from its instant on. */
function readChanges(node: YamlNode | undefined, types: ReadonlyMap<string, ReadType>): number[] {
  const instants: number[] = [];
  (node === undefined ? [] : listAt(node, "changes")).forEach((change, index) => {
    const at = `changes.${index}`;
    const doc = mapAt(change, at);
    onlyMembers(doc, at, ["from", "platforms"]);
    const fromMs = Date.parse(textAt(doc.from, `${at}.from`));
    if (!Number.isFinite(fromMs)) fail(`${at}.from`, "is not an instant");
    instants.push(fromMs);
    for (const [platform, byType] of Object.entries(mapAt(doc.platforms, `${at}.platforms`)))
      for (const [resourceType, changed] of Object.entries(mapAt(byType, `${at}.platforms.${platform}`))) {
        const here = `${at}.platforms.${platform}.${resourceType}`;
        const read = types.get(typeKey(platform, resourceType));
        if (read === undefined) fail(here, "is not a type the model prices");
        const doc = mapAt(changed, here);
        onlyMembers(doc, here, ["prices", "values"]);
        if (doc.prices !== undefined) addSets(read.sets, null, doc.prices, `${here}.prices`, fromMs);
        for (const [value, prices] of Object.entries(
          doc.values === undefined ? {} : mapAt(doc.values, `${here}.values`),
        ))
          addSets(read.sets, value, prices, `${here}.values.${value}`, fromMs);
      }
  });
  return instants.sort((a, b) => a - b);
}

/**
 * Reads a pricing model file (docs/pricing-model.md) for the oracle: YAML's failsafe schema, so a price
 * stays the text that was written; the currency, per platform and resource type its prices (by
 * attribute value and over price changes) and the dimensions each state bills, and the plans. It trusts
 * the engine to have refused a model that breaks the format's rules and refuses only what it cannot
 * read, or a member it does not know how to price.
 */
export function readOraclePrices(text: string): OraclePrices {
  const doc = mapAt(
    readFailsafeYaml(text, (problem) => new ValidationError(`the pricing model is ${problem}`)),
    "document",
  );
  onlyMembers(doc, "", ["format", "name", "currency", "platforms", "changes", "plans"]);
  const types = new Map<string, ReadType>();
  for (const [platform, byType] of Object.entries(mapAt(doc.platforms, "platforms")))
    for (const [resourceType, node] of Object.entries(mapAt(byType, `platforms.${platform}`)))
      types.set(typeKey(platform, resourceType), typePrices(node, `platforms.${platform}.${resourceType}`));
  const changes = readChanges(doc.changes, types);
  return {
    name: textAt(doc.name, "name"),
    currency: textAt(doc.currency, "currency"),
    types,
    changes,
    plans: readOraclePlans(doc.plans),
  };
}
