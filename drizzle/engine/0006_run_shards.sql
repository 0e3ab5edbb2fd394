-- A run spread over worker processes (`run --workers N`, decision 470): each worker meters the
-- resources whose key hashes to its shard, commits their usage records and rated lines (or a
-- correction's line deltas), its per-project bucket totals and its shard row in one transaction; the
-- statement step sums the buckets of every shard once all N rows are there. The tables are small: a
-- few thousand bucket rows per run, one shard row per worker.
CREATE TABLE "run_shards" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "shard" integer NOT NULL,
  "shards" integer NOT NULL,
  "stats" jsonb NOT NULL,
  "completed_at" timestamp (3) with time zone NOT NULL DEFAULT now(),
  PRIMARY KEY ("run_id", "shard"),
  CHECK ("shard" >= 0 AND "shard" < "shards")
);
--> statement-breakpoint
CREATE TABLE "project_buckets" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "shard" integer NOT NULL,
  "cloud" text NOT NULL,
  "project_id" text NOT NULL,
  "platform" text NOT NULL,
  "resource_type" text NOT NULL,
  "amount" numeric NOT NULL,
  PRIMARY KEY ("run_id", "shard", "cloud", "project_id", "platform", "resource_type")
);
--> statement-breakpoint
-- A finalized run's shard rows are never changed, as its other rows (0001).
CREATE TRIGGER "run_shards_finalized_guard" BEFORE UPDATE OR DELETE ON "run_shards"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "project_buckets_finalized_guard" BEFORE UPDATE OR DELETE ON "project_buckets"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
