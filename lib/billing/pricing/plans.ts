import { type Decimal, decimal } from "../../foundation/money/decimal.ts";
import { isYamlMap as isMap, type YamlNode as Node } from "../../foundation/yaml/failsafe-yaml.ts";
import { dimensionOf } from "./dimensions.ts";
import { type ReadTypePricing, readPrice, unknownMembers } from "./type-pricing.ts";

/**
 * Plans (docs/pricing-model.md#plans): the terms some statements are billed under beyond the prices,
 * tiered dimensions and minimum commitments. A plan names the statements it holds for by project
 * (`<cloud>: [<project external id>, ...]`): the project a statement is for, which for an attributed
 * tenant is its cluster manager (decision 460).
 */

export type TierMode = "graduated" | "volume";

/** One band of a schedule: quantities up to `up_to` (inclusive; null: no bound) at `price` a unit. */
export interface Tier {
  up_to: Decimal | null;
  price: Decimal;
}

/** A dimension of a resource type priced in tiers over a statement's month. */
export interface TierSchedule {
  platform: string;
  resource_type: string;
  dimension: string;
  mode: TierMode;
  tiers: Tier[];
}

/** A monthly minimum for a platform's resource type, or for everything of a platform. */
export interface Minimum {
  /** `<platform>` or `<platform>.<resource_type>`, as an adjustment's scope is written. */
  scope: string;
  platform: string;
  resource_type: string | null;
  amount: Decimal;
}

export interface Plan {
  name: string;
  /** Statements billed under it: cloud → project external ids. */
  projects: ReadonlyMap<string, readonly string[]>;
  tiered: TierSchedule[];
  minimums: Minimum[];
}

const planNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const amountPattern = /^\d{1,12}(\.\d{1,2})?$/;
const modes: readonly string[] = ["graduated", "volume"];

/** Reads `plans`; a project may be billed under one plan only. */
export function readPlans(
  node: Node | undefined,
  types: ReadonlyMap<string, ReadonlyMap<string, ReadTypePricing>>,
  problems: string[],
): Plan[] {
  if (node === undefined) return [];
  if (!isMap(node)) {
    problems.push("plans: a mapping of plan names to their terms");
    return [];
  }
  const plans: Plan[] = [];
  const planOf = new Map<string, string>();
  for (const [name, terms] of Object.entries(node)) {
    const at = `plans.${name}`;
    if (!planNamePattern.test(name))
      problems.push(`${at}: letters, digits, \`.\`, \`_\` or \`-\`, at most 100`);
    if (!isMap(terms)) {
      problems.push(`${at}: a mapping with projects, tiered and minimums`);
      continue;
    }
    unknownMembers(at, terms, ["projects", "tiered", "minimums"], problems);
    const projects = readProjects(`${at}.projects`, terms.projects, problems);
    for (const [cloud, ids] of projects) {
      for (const id of ids) {
        const key = `${cloud}\u0000${id}`;
        const held = planOf.get(key);
        if (held !== undefined)
          problems.push(`${at}.projects.${cloud}: ${id} is billed under plan ${held} already`);
        else planOf.set(key, name);
      }
    }
    const tiered = readTiered(`${at}.tiered`, terms.tiered, types, problems);
    const minimums = readMinimums(`${at}.minimums`, terms.minimums, types, problems);
    if (
      tiered.length === 0 &&
      minimums.length === 0 &&
      terms.tiered === undefined &&
      terms.minimums === undefined
    )
      problems.push(`${at}: a plan with neither tiered dimensions nor minimums bills nothing of its own`);
    plans.push({ name, projects, tiered, minimums });
  }
  return plans;
}

function readProjects(at: string, node: Node | undefined, problems: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!isMap(node) || Object.keys(node).length === 0) {
    problems.push(`${at}: a mapping of cloud to the external ids of its projects, required`);
    return out;
  }
  for (const [cloud, ids] of Object.entries(node)) {
    if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== "string" || id === "")) {
      problems.push(`${at}.${cloud}: a list of project external ids`);
      continue;
    }
    const list = ids as string[];
    if (new Set(list).size !== list.length) problems.push(`${at}.${cloud}: a project is named twice`);
    out.set(cloud, list);
  }
  return out;
}

function readTiered(
  at: string,
  node: Node | undefined,
  types: ReadonlyMap<string, ReadonlyMap<string, ReadTypePricing>>,
  problems: string[],
): TierSchedule[] {
  if (node === undefined) return [];
  if (!Array.isArray(node) || node.length === 0) {
    problems.push(`${at}: a list of tiered dimensions`);
    return [];
  }
  const schedules: TierSchedule[] = [];
  node.forEach((item, index) => {
    const here = `${at}.${index}`;
    if (!isMap(item)) {
      problems.push(`${here}: a mapping with dimension, mode and tiers`);
      return;
    }
    unknownMembers(here, item, ["dimension", "mode", "tiers"], problems);
    const [platform = "", resourceType = "", dimension = "", ...rest] =
      typeof item.dimension === "string" ? item.dimension.split(".") : [];
    if (rest.length > 0 || dimensionOf(resourceType, dimension) === undefined) {
      problems.push(
        `${here}.dimension: <platform>.<resource_type>.<dimension>, such as platform_a.instance.vcpus`,
      );
    } else if (types.get(platform)?.get(resourceType) === undefined) {
      problems.push(`${here}.dimension: ${platform}.${resourceType} is not priced by the model`);
    } else if (
      schedules.some(
        (s) => s.platform === platform && s.resource_type === resourceType && s.dimension === dimension,
      )
    ) {
      problems.push(`${here}.dimension: ${item.dimension} is tiered twice in the plan`);
    }
    if (typeof item.mode !== "string" || !modes.includes(item.mode))
      problems.push(
        `${here}.mode: graduated (each unit at its tier's price) or volume (all units at the tier reached)`,
      );
    const tiers = readTiers(`${here}.tiers`, item.tiers, problems);
    schedules.push({
      platform,
      resource_type: resourceType,
      dimension,
      mode: item.mode === "volume" ? "volume" : "graduated",
      tiers,
    });
  });
  return schedules;
}

/** Bands in rising order, each bounded but the last. */
function readTiers(at: string, node: Node | undefined, problems: string[]): Tier[] {
  if (!Array.isArray(node) || node.length === 0) {
    problems.push(`${at}: a list of tiers, each with up_to (all but the last) and price`);
    return [];
  }
  const tiers: Tier[] = [];
  node.forEach((item, index) => {
    const here = `${at}.${index}`;
    const last = index === node.length - 1;
    if (!isMap(item)) {
      problems.push(`${here}: a mapping with up_to and price`);
      return;
    }
    unknownMembers(here, item, ["up_to", "price"], problems);
    let upTo: Decimal | null = null;
    if (last) {
      if (item.up_to !== undefined)
        problems.push(`${here}.up_to: the last tier has no bound: it takes the rest`);
    } else {
      const bound = readPrice(`${here}.up_to`, item.up_to, []);
      const previous = tiers.at(-1)?.up_to ?? null;
      if (bound === null || bound.eq(0))
        problems.push(`${here}.up_to: a positive quantity in the dimension's unit`);
      else if (previous !== null && !bound.gt(previous))
        problems.push(`${here}.up_to: above the tier before it (${previous.toFixed()})`);
      upTo = bound;
    }
    const price = readPrice(`${here}.price`, item.price, problems);
    if (price !== null) tiers.push({ up_to: upTo, price });
  });
  return tiers;
}

function readMinimums(
  at: string,
  node: Node | undefined,
  types: ReadonlyMap<string, ReadonlyMap<string, ReadTypePricing>>,
  problems: string[],
): Minimum[] {
  if (node === undefined) return [];
  if (!Array.isArray(node) || node.length === 0) {
    problems.push(`${at}: a list of minimums, each with scope and amount`);
    return [];
  }
  const minimums: Minimum[] = [];
  node.forEach((item, index) => {
    const here = `${at}.${index}`;
    if (!isMap(item)) {
      problems.push(`${here}: a mapping with scope and amount`);
      return;
    }
    unknownMembers(here, item, ["scope", "amount"], problems);
    const scope = typeof item.scope === "string" ? item.scope : "";
    const [platform = "", resourceType, ...rest] = scope.split(".");
    const priced = types.get(platform);
    if (
      scope === "" ||
      rest.length > 0 ||
      priced === undefined ||
      (resourceType !== undefined && !priced.has(resourceType))
    )
      problems.push(`${here}.scope: <platform> or <platform>.<resource_type> the model prices`);
    else if (minimums.some((m) => m.scope === scope))
      problems.push(`${here}.scope: ${scope} has a minimum already`);
    if (typeof item.amount !== "string" || !amountPattern.test(item.amount)) {
      problems.push(`${here}.amount: a non-negative amount in the model's currency, such as "500.00"`);
      return;
    }
    minimums.push({ scope, platform, resource_type: resourceType ?? null, amount: decimal(item.amount) });
  });
  return minimums;
}
