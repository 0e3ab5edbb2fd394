import type { IngestContext } from "../../lib/billing/reporting/ingest/ingest-batch.ts";

/** Ingest as the collector pipeline with authentication disabled (no principal, no scope). */
export const unauthenticatedIngest: IngestContext = {
  principal: null,
  pipeline: "collector",
  requireSizeSchema: false,
  single: false,
};
