import { ValidationError } from "../../foundation/errors/svc-error.ts";
import type { JsonObject, JsonValue } from "../../foundation/json/json-value.ts";
import { isRfc3339 } from "../../foundation/time/instant.ts";
import type { Project } from "../reporting/registry/projects.ts";
import type { Relation } from "../reporting/registry/relations.ts";

/** A project as the Reporting API lists it, the members a snapshot keeps. */
export type SnapshotProject = Pick<Project, "id" | "platform" | "cloud" | "external_id">;
/** A relation as the Reporting API lists it, but its creation instant. */
export type SnapshotRelation = Omit<Relation, "created_at">;

/**
 * What `simulator compare --registry` prices the oracle's statements with (decision 454): the projects
 * and relations as the Reporting API lists them (members beyond those read are ignored, so the pages of
 * `GET /api/v1/projects` and `GET /api/v1/projects/{id}/relations` go in as they are) and the adjustment
 * walk the engine ran with (`SVC_ENGINE_ADJUSTMENT_RELATION_TYPES`, `SVC_ENGINE_ADJUSTMENT_DEPTH`).
 */
export interface RegistrySnapshot {
  projects: SnapshotProject[];
  relations: SnapshotRelation[];
  adjustment_relation_types: string[];
  adjustment_depth: number;
}

/** Reads a registry snapshot; a ValidationError names the first member that is not what it must be. */
export function readRegistrySnapshot(text: string): RegistrySnapshot {
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch {
    throw new ValidationError("the registry snapshot is not JSON");
  }
  const doc = object(parsed, "document");
  return {
    projects: array(doc.projects, "projects").map((value, i) => {
      const p = object(value, `projects.${i}`);
      return {
        id: string(p.id, `projects.${i}.id`),
        platform: string(p.platform, `projects.${i}.platform`),
        cloud: string(p.cloud, `projects.${i}.cloud`),
        external_id: string(p.external_id, `projects.${i}.external_id`),
      };
    }),
    relations: array(doc.relations, "relations").map((value, i) => {
      const r = object(value, `relations.${i}`);
      return {
        id: string(r.id, `relations.${i}.id`),
        source_id: string(r.source_id, `relations.${i}.source_id`),
        target_id: string(r.target_id, `relations.${i}.target_id`),
        relation_type: string(r.relation_type, `relations.${i}.relation_type`),
        metadata: object(r.metadata, `relations.${i}.metadata`),
        valid_from: instant(r.valid_from, `relations.${i}.valid_from`),
        valid_to: r.valid_to === null ? null : instant(r.valid_to, `relations.${i}.valid_to`),
      };
    }),
    adjustment_relation_types: array(doc.adjustment_relation_types, "adjustment_relation_types").map((t, i) =>
      string(t, `adjustment_relation_types.${i}`),
    ),
    adjustment_depth: depth(doc.adjustment_depth),
  };
}

function object(value: JsonValue | undefined, at: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ValidationError(`the registry snapshot's ${at} is not an object`);
  return value;
}

function array(value: JsonValue | undefined, at: string): JsonValue[] {
  if (!Array.isArray(value)) throw new ValidationError(`the registry snapshot's ${at} is not an array`);
  return value;
}

function string(value: JsonValue | undefined, at: string): string {
  if (typeof value !== "string") throw new ValidationError(`the registry snapshot's ${at} is not a string`);
  return value;
}

function instant(value: JsonValue | undefined, at: string): string {
  const s = string(value, at);
  if (!isRfc3339(s)) throw new ValidationError(`the registry snapshot's ${at} is not an RFC 3339 instant`);
  return s;
}

function depth(value: JsonValue | undefined): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 32)
    throw new ValidationError("the registry snapshot's adjustment_depth is not an integer from 1 to 32");
  return value;
}
