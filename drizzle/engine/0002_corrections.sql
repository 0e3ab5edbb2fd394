-- Corrections (engine part 2, docs/engine.md "A correction"). A correction is a run of kind
-- `correction` naming the finalized run it corrects (the regular run, or its last finalized
-- correction): it stores the line deltas, one credit note per statement a delta reached with its
-- adjustment deltas, the statements it restates (so the next correction compares with them), and
-- the partner settlement's deltas.
-- The adjustment walk a run applied; a correction applies the one of the run it corrects.
ALTER TABLE "runs" ADD COLUMN "adjustment_relation_types" text[] DEFAULT '{managed_by,member_of}' NOT NULL;
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "adjustment_depth" integer DEFAULT 3 NOT NULL;
--> statement-breakpoint
-- Finalized corrections form one chain from the regular run: each finalized run is corrected by at
-- most one finalized correction.
CREATE UNIQUE INDEX "runs_one_finalized_correction_idx" ON "runs" ("corrects_run_id") WHERE "status" = 'finalized';
--> statement-breakpoint
-- A rated line that moved, on the note of the statement it counts on (a project whose attribution
-- moved has a row on each note). `delta` = new_amount - old_amount, never 0.
CREATE TABLE "line_deltas" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "note_cloud" text NOT NULL,
  "note_project_id" text NOT NULL,
  "cloud" text NOT NULL,
  "platform" text NOT NULL,
  "resource_type" text NOT NULL,
  "resource_id" text NOT NULL,
  "project_id" text NOT NULL,
  "dimension" text NOT NULL,
  "unit_price" numeric NOT NULL,
  "old_quantity" numeric NOT NULL,
  "new_quantity" numeric NOT NULL,
  "old_amount" numeric NOT NULL,
  "new_amount" numeric NOT NULL,
  "delta" numeric NOT NULL,
  PRIMARY KEY ("run_id", "cloud", "resource_type", "resource_id", "project_id", "dimension", "note_cloud", "note_project_id")
);
--> statement-breakpoint
CREATE TABLE "credit_notes" (
  "run_id" uuid NOT NULL REFERENCES "runs" ("id"),
  "cloud" text NOT NULL,
  "project_id" text NOT NULL,
  "registry_id" uuid,
  "currency" text NOT NULL,
  "base_delta" numeric NOT NULL,
  "net_delta" numeric NOT NULL,
  "kickback_delta" numeric NOT NULL,
  "total" numeric NOT NULL,
  -- Attributed tenants' deltas: relation_type, relation_id, cloud, project_id, total.
  "related" jsonb NOT NULL,
  "error" text,
  PRIMARY KEY ("run_id", "cloud", "project_id")
);
--> statement-breakpoint
CREATE TABLE "adjustment_deltas" (
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
  "rate" numeric NOT NULL,
  "old_base" numeric NOT NULL,
  "new_base" numeric NOT NULL,
  "old_amount" numeric NOT NULL,
  "new_amount" numeric NOT NULL,
  "delta" numeric NOT NULL,
  PRIMARY KEY ("run_id", "cloud", "project_id", "seq")
);
--> statement-breakpoint
-- The finalized guard of 0001 over the new tables: line deltas go in by COPY while their run is
-- `running`, so they are guarded against update and delete only.
CREATE TRIGGER "line_deltas_finalized_guard" BEFORE UPDATE OR DELETE ON "line_deltas"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "credit_notes_finalized_guard" BEFORE INSERT OR UPDATE OR DELETE ON "credit_notes"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "adjustment_deltas_finalized_guard" BEFORE INSERT OR UPDATE OR DELETE ON "adjustment_deltas"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
