-- The engine database (docs/engine.md): runs and what they computed. Written by hand, as the reporting
-- migrations are; lib/engine/engine-schema.ts mirrors it for typed queries.
-- A pricing model is stored as written, once per name: a run names it, a correction rates with it.
CREATE TABLE "pricing_models" (
  "name" text PRIMARY KEY,
  "digest" text NOT NULL,
  "currency" text NOT NULL,
  "document" text NOT NULL,
  "created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "kind" text NOT NULL CHECK ("kind" IN ('regular', 'correction')),
  "period" text NOT NULL CHECK ("period" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  "corrects_run_id" uuid REFERENCES "runs" ("id"),
  "pricing_model" text NOT NULL REFERENCES "pricing_models" ("name"),
  -- The instant the run read the month: it saw the events received up to it (late ones came after).
  "read_at" timestamp(3) with time zone,
  "status" text NOT NULL CHECK ("status" IN ('running', 'completed', 'failed', 'finalized')),
  "stats" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "error" text,
  "started_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "completed_at" timestamp(3) with time zone,
  "finalized_at" timestamp(3) with time zone,
  CONSTRAINT "runs_correction_check" CHECK (("kind" = 'correction') = ("corrects_run_id" IS NOT NULL))
);
--> statement-breakpoint
-- One run of a period at a time, across processes; one finalized regular run per period.
CREATE UNIQUE INDEX "runs_one_running_idx" ON "runs" ("period") WHERE "status" = 'running';
--> statement-breakpoint
CREATE UNIQUE INDEX "runs_one_finalized_idx" ON "runs" ("period") WHERE "kind" = 'regular' AND "status" = 'finalized';
--> statement-breakpoint
CREATE INDEX "runs_period_idx" ON "runs" ("period", "started_at");
--> statement-breakpoint
-- Usage records: each metered interval of a resource inside the period.
CREATE TABLE "usage" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "cloud" text NOT NULL,
  "platform" text NOT NULL,
  "resource_type" text NOT NULL,
  "resource_id" text NOT NULL,
  "project_id" text NOT NULL,
  "from" timestamp(3) with time zone NOT NULL,
  "to" timestamp(3) with time zone NOT NULL,
  "state" text,
  "size" jsonb,
  "counters" jsonb,
  PRIMARY KEY ("run_id", "cloud", "resource_type", "resource_id", "from")
);
--> statement-breakpoint
-- Rated records: a resource's usage of one dimension while one project owned it, priced once.
CREATE TABLE "rated_lines" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "cloud" text NOT NULL,
  "platform" text NOT NULL,
  "resource_type" text NOT NULL,
  "resource_id" text NOT NULL,
  "project_id" text NOT NULL,
  "dimension" text NOT NULL,
  "quantity" numeric NOT NULL,
  "unit_price" numeric NOT NULL,
  "amount" numeric NOT NULL,
  PRIMARY KEY ("run_id", "cloud", "resource_type", "resource_id", "project_id", "dimension")
);
--> statement-breakpoint
CREATE TABLE "statements" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "cloud" text NOT NULL,
  "project_id" text NOT NULL,
  "registry_id" uuid,
  "currency" text NOT NULL,
  "base_cost" numeric NOT NULL,
  "net_cost" numeric NOT NULL,
  "kickback_total" numeric NOT NULL,
  "total" numeric NOT NULL,
  "adjusted" boolean NOT NULL,
  -- Buckets (platform, resource type, amount) before adjustments, own and attributed.
  "buckets" jsonb NOT NULL,
  -- Attributed tenants: relation_type, relation_id, cloud, project_id, total.
  "related" jsonb NOT NULL,
  "error" text,
  PRIMARY KEY ("run_id", "cloud", "project_id")
);
--> statement-breakpoint
-- Every adjustment line of every statement, in application order; kickbacks among them.
CREATE TABLE "adjustment_records" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "cloud" text NOT NULL,
  "project_id" text NOT NULL,
  "seq" integer NOT NULL,
  "type" text NOT NULL,
  "relation_type" text NOT NULL,
  "relation_target" text NOT NULL,
  "relation_target_cloud" text NOT NULL,
  "relation_id" uuid NOT NULL,
  "scope" text NOT NULL,
  "description" text NOT NULL,
  "rate" numeric NOT NULL,
  "base" numeric NOT NULL,
  "amount" numeric NOT NULL,
  "shares" jsonb NOT NULL,
  PRIMARY KEY ("run_id", "cloud", "project_id", "seq")
);
--> statement-breakpoint
-- The partner settlement: what each beneficiary of a kickback is owed by the run.
CREATE TABLE "partner_settlements" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "beneficiary_cloud" text NOT NULL,
  "beneficiary" text NOT NULL,
  "currency" text NOT NULL,
  "kickback_total" numeric NOT NULL,
  "projects" integer NOT NULL,
  PRIMARY KEY ("run_id", "beneficiary_cloud", "beneficiary")
);
