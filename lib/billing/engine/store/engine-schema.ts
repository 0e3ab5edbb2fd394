import { sql } from "drizzle-orm";
import {
  boolean,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { WarningStats } from "../../metering/run-warnings.ts";
import type { AdjustmentType } from "../../statements/adjustment.ts";

/**
 * The engine database, declared for typed queries; the SQL that creates it is `drizzle/engine/`,
 * written by hand as the reporting migrations are. Bulk rows (usage, rated lines) are written with
 * COPY, not through these declarations.
 */
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "string", precision: 3 });

export const pricingModels = pgTable("pricing_models", {
  name: text("name").primaryKey(),
  digest: text("digest").notNull(),
  currency: text("currency").notNull(),
  document: text("document").notNull(),
  createdAt: instant("created_at").notNull().defaultNow(),
});

export type RunKind = "regular" | "correction";
/** `runs.stats`: the warnings line's classes and codes, and what the run metered and stated. */
export type StoredStats = Partial<WarningStats> & { counts?: Readonly<Record<string, number>> };
export type RunStatus = "running" | "completed" | "failed" | "finalized";

export const runs = pgTable("runs", {
  // Time-ordered (version 7) ids: a run's rows go in at the right edge of the keys (decision 448).
  id: uuid("id").primaryKey().default(sql`svc_uuid_v7()`),
  kind: text("kind").$type<RunKind>().notNull(),
  period: text("period").notNull(),
  correctsRunId: uuid("corrects_run_id"),
  pricingModel: text("pricing_model").notNull(),
  readAt: instant("read_at"),
  status: text("status").$type<RunStatus>().notNull(),
  stats: jsonb("stats").$type<StoredStats>().notNull().default({}),
  error: text("error"),
  startedAt: instant("started_at").notNull().defaultNow(),
  completedAt: instant("completed_at"),
  finalizedAt: instant("finalized_at"),
  adjustmentRelationTypes: text("adjustment_relation_types").array().notNull(),
  adjustmentDepth: integer("adjustment_depth").notNull(),
});
export type Run = typeof runs.$inferSelect;

const key = {
  runId: uuid("run_id").notNull(),
  cloud: text("cloud").notNull(),
  platform: text("platform").notNull(),
  resourceType: text("resource_type").notNull(),
  resourceId: text("resource_id").notNull(),
  projectId: text("project_id").notNull(),
};

export const usage = pgTable(
  "usage",
  {
    ...key,
    from: instant("from").notNull(),
    to: instant("to").notNull(),
    state: text("state"),
    size: jsonb("size").$type<JsonObject>(),
    counters: jsonb("counters").$type<Record<string, number>>(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.cloud, t.resourceType, t.resourceId, t.from] })],
);

export const ratedLines = pgTable(
  "rated_lines",
  {
    ...key,
    dimension: text("dimension").notNull(),
    quantity: numeric("quantity").notNull(),
    unitPrice: numeric("unit_price").notNull(),
    amount: numeric("amount").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.cloud, t.resourceType, t.resourceId, t.projectId, t.dimension] }),
  ],
);

export interface StoredBucket {
  platform: string;
  resource_type: string;
  amount: string;
}

/** An attributed tenant on its manager's statement (its total), or on its note (its delta). */
export interface StoredRelated {
  relation_type: string;
  relation_id: string;
  cloud: string;
  project_id: string;
  total: string;
}

/** A statement's plan lines (decision 467): what `plan` of its exported document holds, as text. */
export interface StoredPlan {
  name: string;
  tier_lines: {
    dimension: string;
    mode: string;
    quantity: string;
    tiers: { up_to: string | null; quantity: string; unit_price: string }[];
    amount: string;
  }[];
  minimums: { scope: string; minimum: string; usage: string; amount: string }[];
}

/** A credit note's plan lines that moved: each tier line's and top-up's old and new amount. */
export interface StoredPlanDeltas {
  tier_lines: { dimension: string; old: string; new: string; delta: string }[];
  minimums: { scope: string; old: string; new: string; delta: string }[];
}

/** Whose a document is (a statement, a credit note) and its currency: the same columns on both. */
const documentHead = {
  runId: uuid("run_id").notNull(),
  cloud: text("cloud").notNull(),
  projectId: text("project_id").notNull(),
  registryId: uuid("registry_id"),
  currency: text("currency").notNull(),
};

/** An adjustment line of a statement (its amount) or of a note (its old and new amount): what made it. */
const adjustmentLine = {
  runId: uuid("run_id").notNull(),
  cloud: text("cloud").notNull(),
  projectId: text("project_id").notNull(),
  seq: integer("seq").notNull(),
  type: text("type").$type<AdjustmentType>().notNull(),
  relationType: text("relation_type").notNull(),
  relationTarget: text("relation_target").notNull(),
  relationTargetCloud: text("relation_target_cloud").notNull(),
  relationId: uuid("relation_id").notNull(),
  scope: text("scope").notNull(),
};

export const statements = pgTable(
  "statements",
  {
    ...documentHead,
    baseCost: numeric("base_cost").notNull(),
    netCost: numeric("net_cost").notNull(),
    kickbackTotal: numeric("kickback_total").notNull(),
    total: numeric("total").notNull(),
    adjusted: boolean("adjusted").notNull(),
    buckets: jsonb("buckets").$type<StoredBucket[]>().notNull(),
    related: jsonb("related").$type<StoredRelated[]>().notNull(),
    plan: jsonb("plan").$type<StoredPlan>(),
    error: text("error"),
  },
  (t) => [primaryKey({ columns: [t.runId, t.cloud, t.projectId] })],
);

export const adjustmentRecords = pgTable(
  "adjustment_records",
  {
    ...adjustmentLine,
    description: text("description").notNull(),
    rate: numeric("rate").notNull(),
    base: numeric("base").notNull(),
    amount: numeric("amount").notNull(),
    shares: jsonb("shares").$type<StoredBucket[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.cloud, t.projectId, t.seq] })],
);

export const partnerSettlements = pgTable(
  "partner_settlements",
  {
    runId: uuid("run_id").notNull(),
    beneficiaryCloud: text("beneficiary_cloud").notNull(),
    beneficiary: text("beneficiary").notNull(),
    currency: text("currency").notNull(),
    kickbackTotal: numeric("kickback_total").notNull(),
    projects: integer("projects").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.beneficiaryCloud, t.beneficiary] })],
);

export const lineDeltas = pgTable(
  "line_deltas",
  {
    ...key,
    noteCloud: text("note_cloud").notNull(),
    noteProjectId: text("note_project_id").notNull(),
    dimension: text("dimension").notNull(),
    unitPrice: numeric("unit_price").notNull(),
    oldQuantity: numeric("old_quantity").notNull(),
    newQuantity: numeric("new_quantity").notNull(),
    oldAmount: numeric("old_amount").notNull(),
    newAmount: numeric("new_amount").notNull(),
    delta: numeric("delta").notNull(),
  },
  (t) => [
    primaryKey({
      columns: [
        t.runId,
        t.cloud,
        t.resourceType,
        t.resourceId,
        t.projectId,
        t.dimension,
        t.noteCloud,
        t.noteProjectId,
      ],
    }),
  ],
);

export const creditNotes = pgTable(
  "credit_notes",
  {
    ...documentHead,
    baseDelta: numeric("base_delta").notNull(),
    netDelta: numeric("net_delta").notNull(),
    kickbackDelta: numeric("kickback_delta").notNull(),
    total: numeric("total").notNull(),
    related: jsonb("related").$type<StoredRelated[]>().notNull(),
    plan: jsonb("plan").$type<StoredPlanDeltas>(),
    error: text("error"),
  },
  (t) => [primaryKey({ columns: [t.runId, t.cloud, t.projectId] })],
);

export const adjustmentDeltas = pgTable(
  "adjustment_deltas",
  {
    ...adjustmentLine,
    rate: numeric("rate").notNull(),
    oldBase: numeric("old_base").notNull(),
    newBase: numeric("new_base").notNull(),
    oldAmount: numeric("old_amount").notNull(),
    newAmount: numeric("new_amount").notNull(),
    delta: numeric("delta").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.cloud, t.projectId, t.seq] })],
);

/** A worker's shard of a run spread over processes (`--workers N`, decision 470): what it counted. */
export const runShards = pgTable(
  "run_shards",
  {
    runId: uuid("run_id").notNull(),
    shard: integer("shard").notNull(),
    shards: integer("shards").notNull(),
    stats: jsonb("stats").$type<StoredStats>().notNull(),
    completedAt: instant("completed_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.shard] })],
);

/** A shard's per-project bucket: the key the statement step sums both shard tables by. */
const shardBucket = {
  runId: uuid("run_id").notNull(),
  shard: integer("shard").notNull(),
  cloud: text("cloud").notNull(),
  projectId: text("project_id").notNull(),
  platform: text("platform").notNull(),
  resourceType: text("resource_type").notNull(),
};

/** A worker's rated lines summed per project and bucket: what the statement step adds up. */
export const projectBuckets = pgTable(
  "project_buckets",
  {
    ...shardBucket,
    amount: numeric("amount").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.shard, t.cloud, t.projectId, t.platform, t.resourceType] })],
);

/** A worker's usage of the dimensions some plan tiers, per project (decision 472): the tier lines' input. */
export const projectUsage = pgTable(
  "project_usage",
  {
    ...shardBucket,
    dimension: text("dimension").notNull(),
    numerator: numeric("numerator").notNull(),
    priced: numeric("priced").notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.runId, t.shard, t.cloud, t.projectId, t.platform, t.resourceType, t.dimension],
    }),
  ],
);
