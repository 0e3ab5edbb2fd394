-- The event history, partitioned by timestamp. With TimescaleDB loaded (available and in
-- shared_preload_libraries) it is a hypertable of monthly chunks, compressed after 90 days and segmented
-- by cloud and resource_type; otherwise a native range-partitioned table of monthly partitions, created
-- ahead by `migrate` and on demand by ingest through svc_ensure_events_partition().
DO $$
DECLARE
  columns text := $cols$
    "event_id" text NOT NULL,
    "timestamp" timestamp(3) with time zone NOT NULL,
    "event_type" text NOT NULL,
    "platform" text NOT NULL,
    "cloud" text NOT NULL,
    "resource_type" text NOT NULL,
    "resource_id" text NOT NULL,
    "project_id" text NOT NULL,
    "source" text NOT NULL,
    "payload" jsonb NOT NULL,
    "received_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
    PRIMARY KEY ("event_id", "timestamp")
  $cols$;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb')
     AND current_setting('shared_preload_libraries') LIKE '%timescaledb%' THEN
    CREATE EXTENSION IF NOT EXISTS timescaledb;
    EXECUTE format('CREATE TABLE "events" (%s)', columns);
    PERFORM create_hypertable('events', 'timestamp', chunk_time_interval => interval '1 month');
    ALTER TABLE "events" SET (
      timescaledb.compress,
      timescaledb.compress_segmentby = 'cloud, resource_type',
      timescaledb.compress_orderby = 'timestamp, event_id'
    );
    PERFORM add_compression_policy('events', interval '90 days');
  ELSE
    EXECUTE format('CREATE TABLE "events" (%s) PARTITION BY RANGE ("timestamp")', columns);
  END IF;
END
$$;
--> statement-breakpoint
-- History of one resource in fold order: the projection's refold and per-resource reads.
CREATE INDEX "events_resource_idx" ON "events" ("cloud", "resource_type", "resource_id", "timestamp");
--> statement-breakpoint
-- Month reads of the engine and the event list / stats by cloud and window.
CREATE INDEX "events_cloud_time_idx" ON "events" ("cloud", "timestamp");
--> statement-breakpoint
-- Project-scoped event reads and the summary's created/deleted counts.
CREATE INDEX "events_project_time_idx" ON "events" ("cloud", "project_id", "timestamp");
--> statement-breakpoint
-- Creates the monthly partition holding `at` when the table is natively partitioned; a no-op on a
-- hypertable, whose chunks TimescaleDB creates itself. Safe to call concurrently: a creator that loses
-- the race gets duplicate_table (or a unique violation on the catalog) and takes the winner's partition.
CREATE FUNCTION svc_ensure_events_partition(at timestamptz) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month_start timestamp := date_trunc('month', at AT TIME ZONE 'UTC');
  partition_name text := 'events_p' || to_char(month_start, 'YYYY_MM');
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'events'::regclass) <> 'p' THEN
    RETURN;
  END IF;
  IF to_regclass(partition_name) IS NOT NULL THEN
    RETURN;
  END IF;
  BEGIN
    EXECUTE format(
      'CREATE TABLE %I PARTITION OF "events" FOR VALUES FROM (%L) TO (%L)',
      partition_name,
      (month_start AT TIME ZONE 'UTC')::text,
      ((month_start + interval '1 month') AT TIME ZONE 'UTC')::text
    );
  EXCEPTION WHEN duplicate_table OR unique_violation THEN
    NULL;
  END;
END
$$;
