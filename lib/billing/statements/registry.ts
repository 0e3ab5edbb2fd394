import { compare } from "../../foundation/collections/compare.ts";
import type { Period } from "../../foundation/time/period.ts";
import type { projectRelations, projects } from "../reporting/schema.ts";

/** A project of the reporting registry, as the engine reads it: the columns of the Reporting schema's row. */
export type RegistryProject = Pick<typeof projects.$inferSelect, "id" | "platform" | "cloud" | "externalId">;

/** A relation of the registry as the engine reads it (instants canonical). */
export type RegistryRelation = Pick<
  typeof projectRelations.$inferSelect,
  "id" | "sourceId" | "targetId" | "relationType" | "metadata" | "validFrom" | "validTo"
>;

/** The registry as one run sees it: projects by id and by (cloud, external id), relations in force. */
export class Registry {
  readonly #byId = new Map<string, RegistryProject>();
  readonly #byKey = new Map<string, RegistryProject>();
  readonly #outgoing = new Map<string, RegistryRelation[]>();
  readonly #incoming = new Map<string, RegistryRelation[]>();

  /**
   * Relations count for a period when their span [validFrom, validTo) overlaps it (decision 410);
   * of one triple (source, target, type) with several such spans the latest-starting one counts (on
   * equal starts the lowest id), so a relation re-created within the month is still visited once.
   */
  constructor(projects: readonly RegistryProject[], relations: readonly RegistryRelation[], period: Period) {
    for (const p of projects) {
      this.#byId.set(p.id, p);
      this.#byKey.set(projectKey(p.cloud, p.externalId), p);
    }
    const from = Date.parse(period.from);
    const to = Date.parse(period.to);
    const byTriple = new Map<string, RegistryRelation>();
    for (const r of relations) {
      if (Date.parse(r.validFrom) >= to) continue;
      if (r.validTo !== null && Date.parse(r.validTo) <= from) continue;
      const triple = `${r.sourceId} ${r.targetId} ${r.relationType}`;
      const held = byTriple.get(triple);
      const start = Date.parse(r.validFrom);
      const heldStart = held === undefined ? Number.NEGATIVE_INFINITY : Date.parse(held.validFrom);
      // On equal starts the lowest id, so the registry does not depend on the order rows come in.
      if (held === undefined || start > heldStart || (start === heldStart && r.id < held.id))
        byTriple.set(triple, r);
    }
    const byId = (a: RegistryRelation, b: RegistryRelation) => compare(a.id, b.id);
    for (const r of [...byTriple.values()].sort(byId)) {
      this.#outgoing.set(r.sourceId, [...(this.#outgoing.get(r.sourceId) ?? []), r]);
      this.#incoming.set(r.targetId, [...(this.#incoming.get(r.targetId) ?? []), r]);
    }
  }

  project(cloud: string, externalId: string): RegistryProject | undefined {
    return this.#byKey.get(projectKey(cloud, externalId));
  }

  byId(id: string): RegistryProject | undefined {
    return this.#byId.get(id);
  }

  /** Outgoing relations in force, ordered by relation id. */
  outgoing(projectId: string): readonly RegistryRelation[] {
    return this.#outgoing.get(projectId) ?? [];
  }

  incoming(projectId: string): readonly RegistryRelation[] {
    return this.#incoming.get(projectId) ?? [];
  }
}

/** Key of a statement and of a registry project: (cloud, external id). */
export function projectKey(cloud: string, projectId: string): string {
  return `${cloud}\u0000${projectId}`;
}
