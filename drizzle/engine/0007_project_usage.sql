-- A worker's usage of the dimensions some plan tiers, summed per project (decision 472): the
-- statement step adds up every shard's, so the tier lines of a run spread over processes are priced
-- on the project's whole usage, as one process prices them. As small as project_buckets.
CREATE TABLE "project_usage" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "shard" integer NOT NULL,
  "cloud" text NOT NULL,
  "project_id" text NOT NULL,
  "platform" text NOT NULL,
  "resource_type" text NOT NULL,
  "dimension" text NOT NULL,
  "numerator" numeric NOT NULL,
  "priced" numeric NOT NULL,
  PRIMARY KEY ("run_id", "shard", "cloud", "project_id", "platform", "resource_type", "dimension")
);
--> statement-breakpoint
-- A finalized run's rows are never changed, as its other rows (0001).
CREATE TRIGGER "project_usage_finalized_guard" BEFORE UPDATE OR DELETE ON "project_usage"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
