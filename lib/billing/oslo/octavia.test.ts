import { describe, expect, test } from "bun:test";
import { octaviaSamples } from "../../../fixtures/oslo/samples.ts";
import { consumedSample, mapSample } from "../../../harness/oslo/map-sample.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";

describe("octavia's worker: id under loadbalancer_id, no provisioning status", () => {
  test("create.end books the load balancer active with no listeners or pools", () => {
    expect(consumedSample(octaviaSamples.workerCreate)).toMatchObject({
      event_type: "octavia.loadbalancer.create.end",
      resource_type: "loadbalancer",
      resource_id: "2e4a6c8e-0a2c-4e6a-8c0e-4a6c8e0a2c4e",
      project_id: "3c9e5b7a1d2f4e6a8b0c2d4e6f8a0b1c",
      payload: { state: "active", size: { listeners: 0, pools: 0 } },
    });
  });

  test("update.end books it active, without a size: listeners and pools are reconciliation's", () => {
    const event = consumedSample(octaviaSamples.workerUpdate);
    expect(event.payload.state).toBe("active");
    expect(event.payload).not.toHaveProperty("size");
  });

  test("delete.end ends it", () => {
    expect(consumedSample(octaviaSamples.workerDelete)).toMatchObject({
      resource_id: "2e4a6c8e-0a2c-4e6a-8c0e-4a6c8e0a2c4e",
      payload: { provider: { publisher_id: "octavia-worker.worker-01" } },
    });
    expect(consumedSample(octaviaSamples.workerDelete).payload).not.toHaveProperty("state");
  });
});

describe("octavia's documented shape: id, a provisioning status of its own", () => {
  test("create.end books the status it states, and a pending create as active: the .end says it finished", () => {
    expect(consumedSample(octaviaSamples.create)).toMatchObject({
      event_id: "d84a3800-06ca-410e-a1a3-b40a02306a97",
      resource_id: "8d4c8f66-7ac1-408e-82d5-59f6fcdea9ee",
      payload: { state: "active", size: { listeners: 0, pools: 0 } },
    });
    expect(consumedSample(octaviaSamples.documentedCreate).payload.state).toBe("active");
    const failed = { ...(octaviaSamples.create.payload as JsonObject), provisioning_status: "ERROR" };
    expect(consumedSample({ ...octaviaSamples.create, payload: failed }).payload.state).toBe("error");
  });

  test("update.end books a settled status (active, error); a pending one maps to nothing", () => {
    expect(consumedSample(octaviaSamples.update).payload).toEqual({
      state: "active",
      provider: expect.objectContaining({ provisioning_status: "ACTIVE" }),
    });
    expect(consumedSample(octaviaSamples.failedUpdate).payload.state).toBe("error");
    expect(mapSample(octaviaSamples.pendingUpdate)).toMatchObject({
      kind: "skipped",
      reason: "an update that has not settled (pending provisioning status)",
    });
  });

  test("delete.end ends it; other octavia types map to nothing", () => {
    expect(consumedSample(octaviaSamples.delete).event_type).toBe("octavia.loadbalancer.delete.end");
    expect(
      mapSample({ ...octaviaSamples.create, event_type: "octavia.loadbalancer.failover.end" }).kind,
    ).toBe("skipped");
  });
});
