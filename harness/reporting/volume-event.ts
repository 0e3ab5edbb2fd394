import type { WorkloadEvent } from "./ingest-workload.ts";

/**
 * A volume's create event of cloud c1 and project p1, resource `v-<id>`, 10 GB of type ssd, at
 * 2026-11-01 10:00 UTC: the event most reporting tests store. `over` replaces what a test is about, so
 * the test names only that.
 */
export function volumeEvent(id: string, over: Partial<WorkloadEvent> = {}): WorkloadEvent {
  return {
    event_id: id,
    timestamp: "2026-11-01T10:00:00.000Z",
    event_type: "volume.create.end",
    platform: "platform_a",
    cloud: "c1",
    resource_type: "volume",
    resource_id: `v-${id}`,
    project_id: "p1",
    payload: { state: "available", size: { size_gb: 10, type: "ssd" } },
    ...over,
  };
}
