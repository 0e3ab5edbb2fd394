import { compare } from "../../foundation/collections/compare.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { Period } from "../../foundation/time/period.ts";

/** A project of the reporting registry, as the engine reads it. */
export interface RegistryProject {
  id: string;
  platform: string;
  cloud: string;
  external_id: string;
}

export interface RegistryRelation {
  id: string;
  source_id: string;
  target_id: string;
  relation_type: string;
  metadata: JsonObject;
  valid_from: string;
  valid_to: string | null;
}

/** The registry as one run sees it: projects by id and by (cloud, external id), relations in force. */
export class Registry {
  readonly #byId = new Map<string, RegistryProject>();
  readonly #byKey = new Map<string, RegistryProject>();
  readonly #outgoing = new Map<string, RegistryRelation[]>();
  readonly #incoming = new Map<string, RegistryRelation[]>();

  /**
   * Relations count for a period when their span [valid_from, valid_to) overlaps it (decision 410);
   * of one triple (source, target, type) with several such spans the latest-starting one counts, so a
   * relation re-created within the month is still visited once.
   */
  constructor(projects: readonly RegistryProject[], relations: readonly RegistryRelation[], period: Period) {
    for (const p of projects) {
      this.#byId.set(p.id, p);
      this.#byKey.set(projectKey(p.cloud, p.external_id), p);
    }
    const from = Date.parse(period.from);
    const to = Date.parse(period.to);
    const byTriple = new Map<string, RegistryRelation>();
    for (const r of relations) {
      if (Date.parse(r.valid_from) >= to) continue;
      if (r.valid_to !== null && Date.parse(r.valid_to) <= from) continue;
      const triple = `${r.source_id} ${r.target_id} ${r.relation_type}`;
      const held = byTriple.get(triple);
      if (held === undefined || Date.parse(held.valid_from) < Date.parse(r.valid_from))
        byTriple.set(triple, r);
    }
    const byId = (a: RegistryRelation, b: RegistryRelation) => compare(a.id, b.id);
    for (const r of [...byTriple.values()].sort(byId)) {
      this.#outgoing.set(r.source_id, [...(this.#outgoing.get(r.source_id) ?? []), r]);
      this.#incoming.set(r.target_id, [...(this.#incoming.get(r.target_id) ?? []), r]);
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
