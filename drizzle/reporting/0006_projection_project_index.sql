-- The projection's index for a project's resources leads with the project: a listing or summary names
-- the project, with or without its cloud. Led by the cloud, the index also served a lookup of the cloud
-- alone, and ingest's read of rows by their whole key, planned once for any table (a generic plan),
-- took it on an empty table and then searched every row of the cloud for each key (decision 157).
DROP INDEX "current_resources_project_idx";
--> statement-breakpoint
CREATE INDEX "current_resources_project_idx" ON "current_resources" ("project_id", "cloud");
