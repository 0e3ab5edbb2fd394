-- Room on each page of the projection for the next version of its rows: ingest updates most rows it
-- reads, and an update that finds room on the row's page and changes no indexed column is a HOT update,
-- which writes no index entry (decision 126). Pages written from now on keep a fifth free; existing
-- pages gain the room as their rows move.
ALTER TABLE "current_resources" SET (fillfactor = 80);
