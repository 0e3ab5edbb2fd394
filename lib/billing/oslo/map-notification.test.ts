import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { backupSamples, snapshotSamples } from "../../../fixtures/oslo/cinder-copies-samples.ts";
import { novaVersionedSamples } from "../../../fixtures/oslo/nova-versioned-samples.ts";
import {
  cinderSamples,
  glanceSamples,
  neutronSamples,
  novaSamples,
  octaviaSamples,
} from "../../../fixtures/oslo/samples.ts";
import { consumedSample, mapSample } from "../../../harness/oslo/map-sample.ts";
import { checkJsonSchema } from "../../foundation/json/json-schema-check.ts";
import type { JsonObject, JsonValue } from "../../foundation/json/json-value.ts";
import { categoryOf } from "../events/category.ts";
import { mapNotification } from "./map-notification.ts";

const target = { platform: "platform_a", cloud: "cloud-1" };

/** The volume size schema as the reporting migration registers it. */
const volumeSizeSchema = JSON.parse(
  /'platform_a', 'volume', '([^']+)'::jsonb/.exec(
    await Bun.file(new URL("../../../drizzle/reporting/0002_size_schemas.sql", import.meta.url)).text(),
  )?.[1] ?? "null",
) as JsonValue;

const map = mapSample;
const consumed = consumedSample;

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

  test(".start halves map to nothing", () => {
    expect(map(novaSamples.createStart).kind).toBe("skipped");
  });

  test("soft delete books nova's soft-delete as soft_deleted, an update; restore books it active", () => {
    const soft = consumed(novaSamples.softDelete);
    expect(soft).toMatchObject({
      event_type: "compute.instance.soft_delete.end",
      payload: { state: "soft_deleted", size: { flavor: "m1.small" } },
    });
    expect(categoryOf(soft.event_type)).toBe("update");
    expect(consumed(novaSamples.restore).payload.state).toBe("active");
    const audit = { ...(novaSamples.exists.payload as JsonObject), state: "soft-delete" };
    expect(consumed({ ...novaSamples.exists, payload: audit }).payload.state).toBe("soft_deleted");
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
    expect(consumed(glanceSamples.activate).payload.size).toEqual({ size_gb: 2.5, disk_format: "qcow2" });
    expect(consumed(glanceSamples.delete).resource_id).toBe("6a8c0e2a-4c6e-4a8c-8e2a-4c6e8a0c2e4a");
    expect(map(glanceSamples.prepare).kind).toBe("skipped");
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
  const types = [
    novaSamples,
    novaVersionedSamples,
    cinderSamples,
    snapshotSamples,
    backupSamples,
    neutronSamples,
    glanceSamples,
    octaviaSamples,
  ].flatMap((s) => Object.values(s).map((m) => String(m.event_type)));
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
