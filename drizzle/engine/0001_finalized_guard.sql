-- A finalized month is never edited (docs/engine.md#finalizing-a-month): the database refuses to
-- change or remove a finalized run or any row that belongs to it, whatever client tries. Inserting new
-- rows for a finalized run is refused too; rows are only ever inserted while their run is `running`.
CREATE FUNCTION svc_refuse_finalized_run_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'finalized' THEN
    RAISE EXCEPTION 'run % is finalized: a finalized month is never changed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "runs_finalized_guard" BEFORE UPDATE OR DELETE ON "runs"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_run_change();
--> statement-breakpoint
CREATE FUNCTION svc_refuse_finalized_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  run uuid := CASE WHEN TG_OP = 'INSERT' THEN NEW.run_id ELSE OLD.run_id END;
BEGIN
  IF EXISTS (SELECT 1 FROM runs WHERE id = run AND status = 'finalized') THEN
    RAISE EXCEPTION 'run % is finalized: a finalized month is never changed', run USING ERRCODE = 'check_violation';
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
--> statement-breakpoint
-- Row triggers on UPDATE and DELETE only: the engine never updates or deletes these rows, so they cost
-- nothing in a run, while COPY of a run's rows (always of a `running` run) stays at full speed.
CREATE TRIGGER "usage_finalized_guard" BEFORE UPDATE OR DELETE ON "usage"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "rated_lines_finalized_guard" BEFORE UPDATE OR DELETE ON "rated_lines"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "statements_finalized_guard" BEFORE INSERT OR UPDATE OR DELETE ON "statements"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "adjustment_records_finalized_guard" BEFORE INSERT OR UPDATE OR DELETE ON "adjustment_records"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
--> statement-breakpoint
CREATE TRIGGER "partner_settlements_finalized_guard" BEFORE INSERT OR UPDATE OR DELETE ON "partner_settlements"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_finalized_row_change();
