import { type Decimal, decimal } from "../../foundation/money/decimal.ts";
import { isYamlMap as isMap, type YamlNode as Node } from "../../foundation/yaml/failsafe-yaml.ts";
import { attributeCatalog, dimensionCatalog, dimensionOf } from "./dimensions.ts";

/**
 * One resource type's pricing in a model (docs/pricing-model.md): its default prices and states, and
 * the prices chosen by one member of a resource's size (a flavor, a volume type). What an interval is
 * priced by is a `Tariff`; the type holds one per price period (`epochs`, docs/pricing-model.md#price-changes).
 */

/** What one interval is priced by: a price per dimension, and the dimensions each state bills. */
export interface Tariff {
  prices: ReadonlyMap<string, Decimal>;
  /** A state not named bills nothing (and is a metering warning). */
  states: ReadonlyMap<string, readonly string[]>;
  /** The attribute value whose prices these are, or null for the type's own. */
  value: string | null;
}

/** The tariffs of a type in one price period: its own, and one per attribute value it prices. */
export interface TypeEpoch {
  /** The instant the period starts (canonical), null for the model's own prices. */
  from: string | null;
  fromMs: number;
  own: Tariff;
  values: ReadonlyMap<string, Tariff>;
}

export interface TypePricing {
  /** The type's own prices and states in the first period (what a model without changes prices by). */
  prices: ReadonlyMap<string, Decimal>;
  states: ReadonlyMap<string, readonly string[]>;
  /** The size member prices are chosen by, or null when the type has one price list. */
  member: string | null;
  /** A member's value as events may carry it (a volume type's id) → the name `values` uses. */
  names: ReadonlyMap<string, string>;
  /** One per price period, in time order; the first is the model's own. */
  epochs: TypeEpoch[];
}

/** The prices a type (or an attribute value) sets itself, before falling back to the type's. */
export interface OwnPrices {
  type: Map<string, Decimal>;
  values: Map<string, Map<string, Decimal>>;
}

const pricePattern = /^\d{1,9}(\.\d{1,10})?$/;
const valuePattern = /^\S(.{0,254}\S)?$/;

/** A price as the format writes it (docs/pricing-model.md): a non-negative plain decimal, at most 10 places. */
export function readPrice(at: string, node: Node | undefined, problems: string[]): Decimal | null {
  if (typeof node !== "string" || !pricePattern.test(node)) {
    problems.push(`${at}: a non-negative decimal such as "0.025"`);
    return null;
  }
  return decimal(node);
}

export function unknownMembers(
  at: string,
  node: Record<string, Node>,
  known: readonly string[],
  problems: string[],
) {
  for (const key of Object.keys(node))
    if (!known.includes(key)) problems.push(`${at}.${key}: unknown member`);
}

/** Prices of dimensions of `resourceType`, each checked (`at.<dimension>`). */
export function readPrices(
  at: string,
  resourceType: string,
  node: Node | undefined,
  problems: string[],
): Map<string, Decimal> {
  const prices = new Map<string, Decimal>();
  if (!isMap(node)) {
    problems.push(`${at}: a mapping of dimension to price`);
    return prices;
  }
  for (const [dimension, price] of Object.entries(node)) {
    if (dimensionOf(resourceType, dimension) === undefined) {
      const known = Object.keys(dimensionCatalog[resourceType] ?? {}).join(", ");
      problems.push(`${at}.${dimension}: not a dimension of ${resourceType} (known: ${known})`);
      continue;
    }
    const read = readPrice(`${at}.${dimension}`, price, problems);
    if (read !== null) prices.set(dimension, read);
  }
  return prices;
}

function readStates(
  at: string,
  node: Node | undefined,
  prices: ReadonlyMap<string, Decimal>,
  problems: string[],
): Map<string, string[]> {
  const states = new Map<string, string[]>();
  if (!isMap(node)) {
    problems.push(`${at}: a mapping of state to billed dimensions, required`);
    return states;
  }
  for (const [state, dims] of Object.entries(node)) {
    const here = `${at}.${state}`;
    if (!Array.isArray(dims) || dims.some((d) => typeof d !== "string")) {
      problems.push(`${here}: a list of dimensions (empty: the state bills nothing)`);
      continue;
    }
    const list = dims as string[];
    for (const d of list) if (!prices.has(d)) problems.push(`${here}: ${d} has no price`);
    if (new Set(list).size !== list.length) problems.push(`${here}: a dimension is named twice`);
    states.set(state, list);
  }
  return states;
}

/** Values with prices of their own, over the type's (a value's states replace the type's when given). */
function readBy(
  at: string,
  resourceType: string,
  node: Node,
  typePrices: ReadonlyMap<string, Decimal>,
  problems: string[],
): { member: string | null; names: Map<string, string>; values: Map<string, OwnValue> } {
  const out = {
    member: null as string | null,
    names: new Map<string, string>(),
    values: new Map<string, OwnValue>(),
  };
  const known = attributeCatalog[resourceType] ?? [];
  if (!isMap(node)) {
    problems.push(`${at}: a mapping with member, values and optional names`);
    return out;
  }
  unknownMembers(at, node, ["member", "names", "values"], problems);
  if (typeof node.member !== "string" || !known.includes(node.member)) {
    const which = known.length === 0 ? "none" : known.join(", ");
    problems.push(`${at}.member: the size member prices are chosen by (known for ${resourceType}: ${which})`);
  } else out.member = node.member;
  if (node.names !== undefined) {
    if (!isMap(node.names)) problems.push(`${at}.names: a mapping of a value as events carry it to its name`);
    else {
      for (const [carried, name] of Object.entries(node.names)) {
        if (typeof name !== "string" || !valuePattern.test(name))
          problems.push(`${at}.names.${carried}: a name, as values names it`);
        else out.names.set(carried, name);
      }
    }
  }
  if (!isMap(node.values) || Object.keys(node.values).length === 0) {
    problems.push(`${at}.values: a mapping of at least one value to its prices, required`);
    return out;
  }
  for (const [value, priced] of Object.entries(node.values)) {
    const here = `${at}.values.${value}`;
    if (!isMap(priced)) {
      problems.push(`${here}: a mapping with prices and optional states`);
      continue;
    }
    unknownMembers(here, priced, ["prices", "states"], problems);
    const own = readPrices(`${here}.prices`, resourceType, priced.prices, problems);
    const merged = new Map([...typePrices, ...own]);
    const states =
      priced.states === undefined ? null : readStates(`${here}.states`, priced.states, merged, problems);
    if (states === null) {
      // Under the type's states a dimension the type does not price is billed by no state.
      for (const [dimension] of own) {
        if (!typePrices.has(dimension))
          problems.push(
            `${here}.prices.${dimension}: no state of the type bills it: give the value states of its own`,
          );
      }
    }
    out.values.set(value, { prices: own, states });
  }
  for (const [carried, name] of out.names) {
    if (!out.values.has(name)) problems.push(`${at}.names.${carried}: ${name} is not one of the values`);
  }
  return out;
}

interface OwnValue {
  prices: Map<string, Decimal>;
  states: Map<string, string[]> | null;
}

/** The tariffs of one period from the prices set in it (the type's own, each value's own over them). */
export function epochOf(
  from: string | null,
  own: OwnPrices,
  states: ReadonlyMap<string, readonly string[]>,
  valueStates: ReadonlyMap<string, ReadonlyMap<string, readonly string[]> | null>,
): TypeEpoch {
  const values = new Map<string, Tariff>();
  for (const [value, prices] of own.values) {
    values.set(value, {
      prices: new Map([...own.type, ...prices]),
      states: valueStates.get(value) ?? states,
      value,
    });
  }
  return {
    from,
    fromMs: from === null ? Number.NEGATIVE_INFINITY : Date.parse(from),
    own: { prices: own.type, states, value: null },
    values,
  };
}

/** A type's pricing as read, with what later periods change kept apart (`own`, `valueStates`). */
export interface ReadTypePricing {
  pricing: TypePricing;
  own: OwnPrices;
  valueStates: Map<string, Map<string, string[]> | null>;
}

/** Reads one resource type's pricing at `at` (`platforms.<platform>.<type>`); null when unusable. */
export function readTypePricing(
  at: string,
  resourceType: string,
  node: Node,
  problems: string[],
): ReadTypePricing | null {
  if (dimensionCatalog[resourceType] === undefined) {
    problems.push(`${at}: unknown resource type (known: ${Object.keys(dimensionCatalog).join(", ")})`);
    return null;
  }
  if (!isMap(node)) {
    problems.push(`${at}: a mapping with prices and states`);
    return null;
  }
  unknownMembers(at, node, ["prices", "by", "states"], problems);
  let prices = new Map<string, Decimal>();
  if (!isMap(node.prices)) problems.push(`${at}.prices: a mapping of dimension to price, required`);
  else prices = readPrices(`${at}.prices`, resourceType, node.prices, problems);
  const states = isMap(node.prices)
    ? readStates(`${at}.states`, node.states, prices, problems)
    : new Map<string, string[]>();
  const by =
    node.by === undefined
      ? { member: null, names: new Map<string, string>(), values: new Map<string, OwnValue>() }
      : readBy(`${at}.by`, resourceType, node.by, prices, problems);
  const own: OwnPrices = {
    type: prices,
    values: new Map([...by.values].map(([value, v]) => [value, v.prices])),
  };
  const valueStates = new Map([...by.values].map(([value, v]) => [value, v.states]));
  return {
    pricing: {
      prices,
      states,
      member: by.member,
      names: by.names,
      epochs: [epochOf(null, own, states, valueStates)],
    },
    own,
    valueStates,
  };
}
