import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  cinderSamples,
  glanceSamples,
  neutronSamples,
  novaSamples,
  octaviaSamples,
} from "../../../fixtures/oslo/samples.ts";
import { checkJsonSchema } from "../../foundation/json/json-schema-check.ts";
import type { JsonObject, JsonValue } from "../../foundation/json/json-value.ts";
import { encodeEnvelope, parseEnvelope } from "./envelope.ts";
import { type MapResult, mapNotification } from "./map-notification.ts";

const target = { platform: "platform_a", cloud: "cloud-1" };

/** The volume size schema as the reporting migration registers it. */
const volumeSizeSchema = JSON.parse(
  /'platform_a', 'volume', '([^']+)'::jsonb/.exec(
    await Bun.file(new URL("../../../drizzle/reporting/0002_size_schemas.sql", import.meta.url)).text(),
  )?.[1] ?? "null",
) as JsonValue;

function map(message: JsonObject): MapResult {
  const parsed = parseEnvelope(encodeEnvelope(message));
  if (parsed.kind !== "notification") throw new Error(parsed.reason);
  return mapNotification(parsed.notification, target);
}

function consumed(message: JsonObject) {
  const result = map(message);
  if (result.kind !== "consumed") throw new Error(`skipped: ${result.reason}`);
  return result.event;
}

describe("nova", () => {
  test("create books the instance with its flavor as size", () => {
    const event = consumed(novaSamples.create);
    expect(event).toMatchObject({
      event_id: String(novaSamples.create.message_id),
      timestamp: "2026-10-03T12:00:05.123Z",
      event_type: "compute.instance.create.end",
      platform: "platform_a",
      cloud: "cloud-1",
      resource_type: "instance",
      resource_id: "9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
      project_id: "3c9e5b7a1d2f4e6a8b0c2d4e6f8a0b1c",
      source: "collector",
      payload: { state: "active", size: { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1.small" } },
    });
    expect(event.payload.provider?.publisher_id).toBe("compute.compute-01");
  });

  test("the daily audit is an update stating the instance as it is", () => {
    expect(consumed(novaSamples.exists).payload).toMatchObject({
      state: "active",
      size: { flavor: "m1.small" },
    });
  });

  test("a resize is booked from finish_resize.end with no resized state, and from its confirm or revert", () => {
    expect(consumed(novaSamples.finishResize).payload).toMatchObject({
      state: "active",
      size: { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" },
    });
    expect(consumed(novaSamples.confirm).payload.size).toMatchObject({ flavor: "m1.medium" });
    expect(consumed(novaSamples.revert).payload.size).toMatchObject({ flavor: "m1.small" });
    expect(map(novaSamples.resizeEnd)).toMatchObject({
      kind: "skipped",
      event_type: "compute.instance.resize.end",
    });
  });

  test("power, shelve and unshelve book the state the server listing shows", () => {
    expect(consumed(novaSamples.powerOff).payload.state).toBe("shutoff");
    expect(consumed(novaSamples.powerOn).payload.state).toBe("active");
    expect(consumed(novaSamples.shelve).payload.state).toBe("shelved");
    expect(consumed(novaSamples.shelveOffload).payload.state).toBe("shelved_offloaded");
    expect(consumed(novaSamples.unshelve).payload.state).toBe("active");
  });

  test("delete carries neither state nor size", () => {
    const event = consumed(novaSamples.delete);
    expect(event.event_type).toBe("compute.instance.delete.end");
    expect(event.payload.state).toBeUndefined();
    expect(event.payload.size).toBeUndefined();
  });

  test(".start halves and versioned instance.* notifications map to nothing", () => {
    expect(map(novaSamples.createStart).kind).toBe("skipped");
    expect(map(novaSamples.versioned)).toEqual({
      kind: "skipped",
      event_type: "instance.power_off.end",
      reason: "versioned notification",
    });
  });
});

describe("cinder", () => {
  test("create books size and the volume type's id as cinder sends it", () => {
    expect(consumed(cinderSamples.create)).toMatchObject({
      resource_type: "volume",
      resource_id: "4b6d8f0a-2c4e-4a6b-9d8f-0a2c4e6b8d0f",
      payload: { state: "available", size: { size_gb: 50, type: "5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11" } },
    });
  });

  test("attach, resize, retype and transfer are updates; a transfer names the new owner", () => {
    expect(consumed(cinderSamples.attach).payload.state).toBe("in-use");
    expect(consumed(cinderSamples.resize).payload.size).toEqual({
      size_gb: 100,
      type: "5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11",
    });
    expect(consumed(cinderSamples.retype).payload.size).toMatchObject({
      type: "a1d9e4b2-6c3f-4f8a-b7e0-2c5d8f1a9b22",
    });
    expect(consumed(cinderSamples.transfer).project_id).toBe("6e8f0a2c4e6a8c0e2a4c6e8a0c2e4a6c");
  });

  test("a volume without a type is booked under __DEFAULT__, which ingest's size schema admits", () => {
    for (const volume_type of [null, ""]) {
      const payload = { ...(cinderSamples.create.payload as JsonObject), volume_type };
      const event = consumed({ ...cinderSamples.create, payload });
      expect(event.payload.size).toEqual({ size_gb: 50, type: "__DEFAULT__" });
      expect(checkJsonSchema(volumeSizeSchema, event.payload.size as JsonValue, "size")).toEqual([]);
    }
  });

  test("delete ends it; a .start half maps to nothing", () => {
    expect(consumed(cinderSamples.delete).payload).not.toHaveProperty("state");
    expect(map(cinderSamples.createStart).kind).toBe("skipped");
  });
});

describe("neutron", () => {
  test("floating IP create books the address family; the owner comes from the resource", () => {
    expect(consumed(neutronSamples.create)).toMatchObject({
      resource_type: "floating_ip",
      resource_id: "1f3e5d7c-9b1a-4c3e-8d5f-7a9b1c3d5e7f",
      project_id: "3c9e5b7a1d2f4e6a8b0c2d4e6f8a0b1c",
      payload: { state: "down", size: { ip_version: 4 } },
    });
    expect(consumed(neutronSamples.createV6).payload.size).toEqual({ ip_version: 6 });
  });

  test("association updates map to nothing; delete reads floatingip_id", () => {
    expect(map(neutronSamples.update).kind).toBe("skipped");
    expect(consumed(neutronSamples.delete).resource_id).toBe("1f3e5d7c-9b1a-4c3e-8d5f-7a9b1c3d5e7f");
  });

  test("the owner falls back to the request context", () => {
    const fip = { ...((neutronSamples.create.payload as JsonObject).floatingip as JsonObject) };
    delete fip.tenant_id;
    delete fip.project_id;
    expect(consumed({ ...neutronSamples.create, payload: { floatingip: fip } }).project_id).toBe(
      "3c9e5b7a1d2f4e6a8b0c2d4e6f8a0b1c",
    );
  });
});

describe("glance", () => {
  test("create opens a queued image of size 0; upload and activate book the size in GiB", () => {
    expect(consumed(glanceSamples.create).payload).toMatchObject({ state: "queued", size: { size_gb: 0 } });
    expect(consumed(glanceSamples.upload).payload).toMatchObject({ state: "active", size: { size_gb: 2.5 } });
    expect(consumed(glanceSamples.activate).payload.size).toEqual({ size_gb: 2.5 });
    expect(consumed(glanceSamples.delete).resource_id).toBe("6a8c0e2a-4c6e-4a8c-8e2a-4c6e8a0c2e4a");
    expect(map(glanceSamples.prepare).kind).toBe("skipped");
  });
});

describe("octavia", () => {
  test("create books the load balancer with the listeners and pools it reports; update maps to nothing", () => {
    expect(consumed(octaviaSamples.create)).toMatchObject({
      event_id: "d84a3800-06ca-410e-a1a3-b40a02306a97",
      resource_type: "loadbalancer",
      payload: { state: "active", size: { listeners: 0, pools: 0 } },
    });
    expect(map(octaviaSamples.update).kind).toBe("skipped");
    expect(consumed(octaviaSamples.delete).event_type).toBe("octavia.loadbalancer.delete.end");
  });
});

test("a type of no mapped service is skipped under its own type", () => {
  expect(map({ ...novaSamples.create, event_type: "identity.project.created" })).toMatchObject({
    kind: "skipped",
    event_type: "identity.project.created",
  });
});

test("without a message id the event id is derived from the shared rule", () => {
  const { message_id: _, ...rest } = cinderSamples.create;
  expect(consumed(rest).event_id).toMatch(/^platform_a:[0-9a-f]{64}$/);
});

const json: fc.Arbitrary<JsonValue> = fc.jsonValue() as fc.Arbitrary<JsonValue>;

test("mapping never throws, whatever the payload of a mapped type holds", () => {
  const types = [novaSamples, cinderSamples, neutronSamples, glanceSamples, octaviaSamples].flatMap((s) =>
    Object.values(s).map((m) => String(m.event_type)),
  );
  fc.assert(
    fc.property(fc.constantFrom(...types), fc.dictionary(fc.string(), json), (eventType, payload) => {
      const result = mapNotification(
        {
          message_id: "m",
          publisher_id: null,
          event_type: eventType,
          priority: "INFO",
          timestamp: "garbage",
          payload: payload as JsonObject,
          raw: {},
        },
        target,
      );
      expect(["consumed", "skipped"]).toContain(result.kind);
    }),
    { numRuns: 300 },
  );
});
