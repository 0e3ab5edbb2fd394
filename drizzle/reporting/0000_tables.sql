-- The eleven tables of the reporting database. Written by hand: drizzle cannot declare a partitioned
-- table or a hypertable, so `events` is created in 0001 and this file holds the others.
CREATE TABLE "rejected_events" (
  "id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  "received_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "reason" text NOT NULL,
  "errors" jsonb NOT NULL,
  "raw_body" text NOT NULL,
  "event_id" text,
  "item_index" integer NOT NULL,
  "credential_id" uuid,
  "request_id" text
);
--> statement-breakpoint
CREATE INDEX "rejected_events_received_idx" ON "rejected_events" ("received_at", "id");
--> statement-breakpoint
CREATE TABLE "current_resources" (
  "cloud" text NOT NULL,
  "resource_type" text NOT NULL,
  "resource_id" text NOT NULL,
  "platform" text NOT NULL,
  "project_id" text NOT NULL,
  "state" text,
  "size" jsonb,
  "created_at" timestamp(3) with time zone,
  "deleted_at" timestamp(3) with time zone,
  "last_event_timestamp" timestamp(3) with time zone NOT NULL,
  "last_event_rank" integer NOT NULL,
  "last_event_id" text NOT NULL,
  "event_count" integer NOT NULL,
  "updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  PRIMARY KEY ("cloud", "resource_type", "resource_id")
);
--> statement-breakpoint
CREATE INDEX "current_resources_project_idx" ON "current_resources" ("cloud", "project_id");
--> statement-breakpoint
CREATE TABLE "resource_types" (
  "platform" text NOT NULL,
  "resource_type" text NOT NULL,
  "size_schema" jsonb NOT NULL,
  "created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  PRIMARY KEY ("platform", "resource_type")
);
--> statement-breakpoint
CREATE TABLE "projects" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "platform" text NOT NULL,
  "cloud" text NOT NULL,
  "external_id" text NOT NULL,
  "name" text,
  "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  -- A virtual project (meta, partner) carries its platform as cloud; no other project uses those clouds.
  CONSTRAINT "projects_virtual_cloud_check" CHECK (
    CASE WHEN "platform" IN ('meta', 'partner') THEN "cloud" = "platform"
         ELSE "cloud" NOT IN ('meta', 'partner') END
  )
);
--> statement-breakpoint
CREATE UNIQUE INDEX "projects_cloud_external_idx" ON "projects" ("cloud", "external_id");
--> statement-breakpoint
CREATE TABLE "project_relations" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "source_id" uuid NOT NULL REFERENCES "projects" ("id"),
  "target_id" uuid NOT NULL REFERENCES "projects" ("id"),
  "relation_type" text NOT NULL,
  "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "valid_from" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "valid_to" timestamp(3) with time zone,
  "created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "project_relations_active_idx" ON "project_relations" ("source_id", "target_id", "relation_type")
  WHERE "valid_to" IS NULL;
--> statement-breakpoint
CREATE INDEX "project_relations_target_idx" ON "project_relations" ("target_id");
--> statement-breakpoint
CREATE TABLE "ingest_credentials" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "platform" text NOT NULL,
  "cloud" text NOT NULL,
  "label" text DEFAULT '' NOT NULL,
  "secret_hash" text NOT NULL UNIQUE,
  "created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "revoked_at" timestamp(3) with time zone
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "role" text NOT NULL,
  "project_ids" uuid[],
  "label" text DEFAULT '' NOT NULL,
  "secret_hash" text NOT NULL UNIQUE,
  "created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "revoked_at" timestamp(3) with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
  "id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  "at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "actor" text NOT NULL,
  "action" text NOT NULL,
  "target" text,
  "detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_log_action_at_idx" ON "audit_log" ("action", "at");
--> statement-breakpoint
CREATE TABLE "sync_runs" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "cloud" text NOT NULL,
  "status" text NOT NULL,
  "run_at" timestamp(3) with time zone NOT NULL,
  "started_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  "finished_at" timestamp(3) with time zone,
  "stats" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "error" text
);
--> statement-breakpoint
CREATE INDEX "sync_runs_cloud_started_idx" ON "sync_runs" ("cloud", "started_at");
--> statement-breakpoint
-- At most one running sync per cloud: a second run collides here instead of racing the first.
CREATE UNIQUE INDEX "sync_runs_running_idx" ON "sync_runs" ("cloud") WHERE "status" = 'running';
--> statement-breakpoint
CREATE TABLE "size_names" (
  "cloud" text NOT NULL,
  "resource_type" text NOT NULL,
  "member" text NOT NULL,
  "value" text NOT NULL,
  "name" text NOT NULL,
  PRIMARY KEY ("cloud", "resource_type", "member", "value")
);
