import { compare } from "../../../foundation/collections/compare.ts";
import type { JsonObject, JsonValue } from "../../../foundation/json/json-value.ts";

/** A project as the Reporting API lists it, the members the oracle reads. */
export interface OracleProject {
  id: string;
  platform: string;
  cloud: string;
  external_id: string;
}

/** A relation as the Reporting API lists it, the members the oracle reads. */
export interface OracleRelation {
  id: string;
  source_id: string;
  target_id: string;
  relation_type: string;
  metadata: JsonObject;
  valid_from: string;
  valid_to: string | null;
}

/** The registry the oracle prices statements with: as listed, and the adjustment walk the engine ran. */
export interface OracleRegistryInput {
  projects: readonly OracleProject[];
  relations: readonly OracleRelation[];
  adjustment_relation_types: readonly string[];
  adjustment_depth: number;
}

/** The relation type through which a cluster manager is billed for its tenant. */
export const attributing = "infrastructure_tenant";

/** One element of a `pricing_adjustments` array, read by the registry's rules. */
export interface OracleAdjustmentRule {
  type: "surcharge" | "discount" | "project_discount" | "kickback";
  rate: string;
  scope: string;
}

const types = ["surcharge", "discount", "project_discount", "kickback"];
const ratePattern = /^0(\.\d{1,6})?$|^1(\.0{1,6})?$/;
const scopePattern = /^all$|^[a-z0-9_]+(\.[a-z0-9_]+)?$/;

function readRule(value: JsonValue): OracleAdjustmentRule | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { type, rate, scope, description, ...rest } = value;
  if (Object.keys(rest).length > 0) return null;
  if (typeof type !== "string" || !types.includes(type)) return null;
  if (typeof rate !== "string" || !ratePattern.test(rate)) return null;
  if (typeof scope !== "string" || !scopePattern.test(scope)) return null;
  if (description !== undefined && (typeof description !== "string" || [...description].length > 500))
    return null;
  return { type: type as OracleAdjustmentRule["type"], rate, scope };
}

/**
 * A relation's `pricing_adjustments` by the registry's rules (docs/reporting-api.md#pricing-adjustments):
 * an array of 1 to 64 elements, each with a known type, a rate from 0 to 1 with at most six places, a
 * scope, an optional description of at most 500 characters and nothing else. Null when any rule breaks:
 * the statement that reaches it fails whole.
 */
export function readRules(value: JsonValue | undefined): OracleAdjustmentRule[] | null {
  if (!Array.isArray(value) || value.length < 1 || value.length > 64) return null;
  const rules = value.map(readRule);
  return rules.every((r) => r !== null) ? (rules as OracleAdjustmentRule[]) : null;
}

/**
 * The registry as the oracle reads it for one month: a relation counts when its span [valid_from,
 * valid_to) overlaps the month; of one (source, target, type) with several such spans, the one that
 * starts last counts (on equal starts, the lowest id), so a relation closed and re-made within the month
 * is reached once (decision 410).
 */
export class OracleRegistry {
  readonly #byId = new Map<string, OracleProject>();
  readonly #byKey = new Map<string, OracleProject>();
  readonly #outgoing = new Map<string, OracleRelation[]>();
  readonly #incoming = new Map<string, OracleRelation[]>();
  /** Relations in force for the month, after one per triple was kept. */
  readonly inForce: readonly OracleRelation[];

  constructor(input: OracleRegistryInput, month: { from: string; to: string }) {
    for (const p of input.projects) {
      this.#byId.set(p.id, p);
      this.#byKey.set(`${p.cloud}\u0000${p.external_id}`, p);
    }
    const from = Date.parse(month.from);
    const to = Date.parse(month.to);
    const kept = new Map<string, OracleRelation>();
    for (const r of input.relations) {
      const start = Date.parse(r.valid_from);
      if (start >= to || (r.valid_to !== null && Date.parse(r.valid_to) <= from)) continue;
      const triple = `${r.source_id}\u0000${r.target_id}\u0000${r.relation_type}`;
      const held = kept.get(triple);
      const heldStart = held === undefined ? Number.NEGATIVE_INFINITY : Date.parse(held.valid_from);
      if (held === undefined || start > heldStart || (start === heldStart && r.id < held.id))
        kept.set(triple, r);
    }
    this.inForce = [...kept.values()].sort((a, b) => compare(a.id, b.id));
    for (const r of this.inForce) {
      this.#outgoing.set(r.source_id, [...(this.#outgoing.get(r.source_id) ?? []), r]);
      this.#incoming.set(r.target_id, [...(this.#incoming.get(r.target_id) ?? []), r]);
    }
  }

  project(cloud: string, externalId: string): OracleProject | undefined {
    return this.#byKey.get(`${cloud}\u0000${externalId}`);
  }

  byId(id: string): OracleProject | undefined {
    return this.#byId.get(id);
  }

  /** Outgoing relations in force, by relation id. */
  outgoing(id: string): readonly OracleRelation[] {
    return this.#outgoing.get(id) ?? [];
  }

  /**
   * The cluster manager a project's costs go to (docs/engine.md#attribution): up its incoming
   * `infrastructure_tenant` relations (the lowest id of several) to a project that has none; null
   * when nothing attributes it or the way up turns in a circle.
   */
  managerOf(project: OracleProject): { manager: OracleProject; relation: OracleRelation } | null {
    let current = project;
    let first: OracleRelation | null = null;
    const seen = new Set([project.id]);
    for (;;) {
      const relation = (this.#incoming.get(current.id) ?? []).find((r) => r.relation_type === attributing);
      const manager = relation === undefined ? undefined : this.#byId.get(relation.source_id);
      if (relation === undefined || manager === undefined) break;
      if (seen.has(manager.id)) return null;
      seen.add(manager.id);
      first ??= relation;
      current = manager;
    }
    return first === null ? null : { manager: current, relation: first };
  }
}

/** A relation the walk applies, with the level it was first reached at (1: the project's own). */
export interface Reached {
  relation: OracleRelation;
  level: number;
}

/** What the walk from one project found. */
export interface Walk {
  reached: Reached[];
  /** A reached relation whose `pricing_adjustments` cannot be read: the statement fails. */
  unreadable: OracleRelation | null;
  /** Times a relation already visited was met again by another way (it counts once). */
  metAgain: number;
  /** Relations of the walked types one level past the depth: in the graph, out of the walk's reach. */
  beyond: number;
}

/**
 * The adjustment walk from a project (docs/engine.md#adjustments, rule 1): breadth first over outgoing
 * relations of the walked types, level by level up to the depth, each relation once. It also looks one
 * level further, only to count what the depth leaves out.
 */
export function walkFrom(
  registry: OracleRegistry,
  projectId: string,
  walk: { types: readonly string[]; depth: number },
): Walk {
  const visited = new Set<string>();
  const result: Walk = { reached: [], unreadable: null, metAgain: 0, beyond: 0 };
  let frontier = [projectId];
  for (let level = 1; level <= walk.depth + 1 && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const relation of registry.outgoing(id)) {
        if (!walk.types.includes(relation.relation_type)) continue;
        if (visited.has(relation.id)) {
          if (level <= walk.depth) result.metAgain += 1;
          continue;
        }
        visited.add(relation.id);
        if (level > walk.depth) {
          result.beyond += 1;
          continue;
        }
        next.push(relation.target_id);
        if (!Object.hasOwn(relation.metadata, "pricing_adjustments")) continue;
        if (readRules(relation.metadata.pricing_adjustments) === null && result.unreadable === null)
          result.unreadable = relation;
        result.reached.push({ relation, level });
      }
    }
    frontier = next;
  }
  return result;
}
