-- Usage records and rated lines name their run without a foreign key (decision 431): a run writes a few
-- hundred thousand of them by COPY, and the foreign key's check of every row (an after-row trigger that
-- looks the run up and locks it, once per row) cost as much as the COPY itself. One check per COPY
-- statement keeps what the key gave and adds what it did not: the rows of a statement must name runs
-- that exist and are `running` (rows are only ever written by their run, so a finalized or failed run
-- gets no new ones), each such run is locked against deletion once, and a run that has rows cannot
-- be deleted.
ALTER TABLE "usage" DROP CONSTRAINT "usage_run_id_fkey";
--> statement-breakpoint
ALTER TABLE "rated_lines" DROP CONSTRAINT "rated_lines_run_id_fkey";
--> statement-breakpoint
CREATE FUNCTION svc_require_running_run() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  run uuid;
BEGIN
  FOR run IN SELECT DISTINCT run_id FROM new_rows LOOP
    -- FOR KEY SHARE, as a foreign key's check locks the row it references: a concurrent delete of the
    -- run waits for this transaction and then sees its rows.
    PERFORM 1 FROM runs WHERE id = run AND status = 'running' FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'rows of % for run %, which is not a running run', TG_TABLE_NAME, run
        USING ERRCODE = 'foreign_key_violation';
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "usage_running_run" AFTER INSERT ON "usage" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_require_running_run();
--> statement-breakpoint
CREATE TRIGGER "rated_lines_running_run" AFTER INSERT ON "rated_lines" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_require_running_run();
--> statement-breakpoint
CREATE FUNCTION svc_refuse_run_with_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM usage WHERE run_id = OLD.id) OR EXISTS (SELECT 1 FROM rated_lines WHERE run_id = OLD.id) THEN
    RAISE EXCEPTION 'run % has usage records or rated lines: it cannot be deleted', OLD.id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "runs_keep_rows" BEFORE DELETE ON "runs"
  FOR EACH ROW EXECUTE FUNCTION svc_refuse_run_with_rows();
