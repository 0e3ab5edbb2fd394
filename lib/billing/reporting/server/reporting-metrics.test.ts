import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { unauthenticatedIngest } from "../../../../harness/reporting/unauthenticated-ingest.ts";
import { ingestItems } from "../ingest/ingest-batch.ts";
import { ReportingMetrics } from "./reporting-metrics.ts";

const db = reportingDatabaseOfFile(2);

const ctx = unauthenticatedIngest;

test("svc_current_resources counts the projection by cloud, type and status; ingest outcomes count", async () => {
  const registry = new Registry();
  const metrics = new ReportingMetrics(registry);
  const image = (id: string, event_type: string, timestamp: string) => ({
    event_id: `${id}-${event_type}`,
    timestamp,
    event_type,
    platform: "platform_a",
    cloud: "c1",
    resource_type: "image",
    resource_id: id,
    project_id: "p1",
    payload: event_type === "image.delete" ? {} : { state: "active", size: { size_gb: 1 } },
  });
  const outcome = await ingestItems(
    db,
    [
      image("a", "image.create", "2026-11-01T00:00:00Z"),
      image("b", "image.create", "2026-11-01T00:00:00Z"),
      image("b", "image.delete", "2026-11-02T00:00:00Z"),
      image("b", "image.delete", "2026-11-02T00:00:00Z"),
      { broken: true },
    ],
    ctx,
  );
  metrics.recordIngest(outcome);
  await metrics.refreshCurrentResources(db.sql);
  const text = await registry.metrics();
  expect(text).toContain('svc_current_resources{cloud="c1",resource_type="image",status="active"} 1');
  expect(text).toContain('svc_current_resources{cloud="c1",resource_type="image",status="deleted"} 1');
  expect(text).toContain('svc_ingest_events_total{outcome="accepted"} 3');
  expect(text).toContain('svc_ingest_events_total{outcome="duplicate"} 1');
  expect(text).toContain('svc_ingest_rejected_total{reason="invalid"} 1');
});
