import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { PayloadEnvelope } from "../events/event.ts";

/**
 * The eleven tables of the reporting database, declared for typed queries. The SQL that creates them is
 * in `drizzle/reporting/` and is written by hand: drizzle cannot declare a partitioned table or a
 * hypertable (field notes), so `drizzle-kit push` must never be run against this database.
 */

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "string", precision: 3 });

/** Append-only history, partitioned by `timestamp` (monthly range partitions or a hypertable). */
export const events = pgTable(
  "events",
  {
    eventId: text("event_id").notNull(),
    timestamp: instant("timestamp").notNull(),
    eventType: text("event_type").notNull(),
    platform: text("platform").notNull(),
    cloud: text("cloud").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    projectId: text("project_id").notNull(),
    source: text("source").notNull(),
    payload: jsonb("payload").$type<PayloadEnvelope>().notNull(),
    receivedAt: instant("received_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.timestamp] }),
    index("events_resource_idx").on(t.cloud, t.resourceType, t.resourceId, t.timestamp),
    index("events_cloud_time_idx").on(t.cloud, t.timestamp),
    index("events_project_time_idx").on(t.cloud, t.projectId, t.timestamp),
    index("events_time_idx").on(t.timestamp, t.eventId),
  ],
);

/** Dead letter: refused ingest items with the reason and the body as submitted. */
export const rejectedEvents = pgTable(
  "rejected_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    receivedAt: instant("received_at").notNull().defaultNow(),
    reason: text("reason").notNull(),
    errors: jsonb("errors").$type<{ loc: string; msg: string }[]>().notNull(),
    rawBody: text("raw_body").notNull(),
    eventId: text("event_id"),
    itemIndex: integer("item_index").notNull(),
    credentialId: uuid("credential_id"),
    requestId: text("request_id"),
  },
  (t) => [index("rejected_events_received_idx").on(t.receivedAt, t.id)],
);

/** Projection: what each resource is now. Rows are never removed. */
export const currentResources = pgTable(
  "current_resources",
  {
    cloud: text("cloud").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    platform: text("platform").notNull(),
    projectId: text("project_id").notNull(),
    state: text("state"),
    size: jsonb("size").$type<JsonObject>(),
    createdAt: instant("created_at"),
    deletedAt: instant("deleted_at"),
    lastEventTimestamp: instant("last_event_timestamp").notNull(),
    lastEventRank: integer("last_event_rank").notNull(),
    lastEventId: text("last_event_id").notNull(),
    eventCount: integer("event_count").notNull(),
    updatedAt: instant("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.cloud, t.resourceType, t.resourceId] }),
    index("current_resources_project_idx").on(t.projectId, t.cloud),
  ],
);

export const resourceTypes = pgTable(
  "resource_types",
  {
    platform: text("platform").notNull(),
    resourceType: text("resource_type").notNull(),
    sizeSchema: jsonb("size_schema").$type<JsonObject>().notNull(),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.platform, t.resourceType] })],
);

export const projects = pgTable(
  "projects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    platform: text("platform").notNull(),
    cloud: text("cloud").notNull(),
    externalId: text("external_id").notNull(),
    name: text("name"),
    metadata: jsonb("metadata").$type<JsonObject>().notNull().default({}),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("projects_cloud_external_idx").on(t.cloud, t.externalId)],
);

export const projectRelations = pgTable(
  "project_relations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    sourceId: uuid("source_id")
      .notNull()
      .references(() => projects.id),
    targetId: uuid("target_id")
      .notNull()
      .references(() => projects.id),
    relationType: text("relation_type").notNull(),
    metadata: jsonb("metadata").$type<JsonObject>().notNull().default({}),
    validFrom: instant("valid_from").notNull().defaultNow(),
    validTo: instant("valid_to"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("project_relations_active_idx")
      .on(t.sourceId, t.targetId, t.relationType)
      .where(sql`valid_to is null`),
    index("project_relations_target_idx").on(t.targetId),
  ],
);

/** Ingest credentials: one per (platform, cloud) pair it may report for. Only the secret's hash is kept. */
export const ingestCredentials = pgTable("ingest_credentials", {
  id: uuid("id").primaryKey().defaultRandom(),
  platform: text("platform").notNull(),
  cloud: text("cloud").notNull(),
  label: text("label").notNull().default(""),
  secretHash: text("secret_hash").notNull().unique(),
  createdAt: instant("created_at").notNull().defaultNow(),
  revokedAt: instant("revoked_at"),
});

/** API tokens: a role and, optionally, a project scope (registry ids). Only the secret's hash is kept. */
export const apiTokens = pgTable("api_tokens", {
  id: uuid("id").primaryKey().defaultRandom(),
  role: text("role").notNull(),
  projectIds: uuid("project_ids").array(),
  label: text("label").notNull().default(""),
  secretHash: text("secret_hash").notNull().unique(),
  createdAt: instant("created_at").notNull().defaultNow(),
  revokedAt: instant("revoked_at"),
});

export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: instant("at").notNull().defaultNow(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    detail: jsonb("detail").$type<JsonObject>().notNull().default({}),
  },
  (t) => [index("audit_log_action_at_idx").on(t.action, t.at)],
);

export const syncRuns = pgTable(
  "sync_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    cloud: text("cloud").notNull(),
    status: text("status").notNull(),
    runAt: instant("run_at").notNull(),
    startedAt: instant("started_at").notNull().defaultNow(),
    finishedAt: instant("finished_at"),
    stats: jsonb("stats").$type<JsonObject>().notNull().default({}),
    error: text("error"),
  },
  (t) => [index("sync_runs_cloud_started_idx").on(t.cloud, t.startedAt)],
);

export const sizeNames = pgTable(
  "size_names",
  {
    cloud: text("cloud").notNull(),
    resourceType: text("resource_type").notNull(),
    member: text("member").notNull(),
    value: text("value").notNull(),
    name: text("name").notNull(),
  },
  (t) => [primaryKey({ columns: [t.cloud, t.resourceType, t.member, t.value] })],
);
