-- The event list's order (timestamp, event_id): pages read an index range instead of sorting a month.
CREATE INDEX "events_time_idx" ON "events" ("timestamp", "event_id");
