import { describe, expect, test } from "bun:test";
import { novaVersionedSamples as versioned } from "../../../fixtures/oslo/nova-versioned-samples.ts";
import { novaSamples as legacy } from "../../../fixtures/oslo/samples.ts";
import { consumedSample, mapSample } from "../../../harness/oslo/map-sample.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { legacyTwinOf } from "./nova-versioned.ts";

/** The members of an event that say what was booked, without the notification's own id, instant and audit data. */
function booked(message: JsonObject) {
  const { event_id: _, timestamp: __, payload, ...rest } = consumedSample(message);
  return { ...rest, state: payload.state, size: payload.size };
}

describe("a versioned notification books the same event as its legacy twin", () => {
  const twins: [string, JsonObject, JsonObject][] = [
    ["create", versioned.create, legacy.create],
    ["exists", versioned.exists, legacy.exists],
    ["finish of a resize", versioned.resizeFinish, legacy.finishResize],
    ["resize confirm", versioned.resizeConfirm, legacy.confirm],
    ["resize revert", versioned.resizeRevert, legacy.revert],
    ["power off", versioned.powerOff, legacy.powerOff],
    ["power on", versioned.powerOn, legacy.powerOn],
    ["shelve", versioned.shelve, legacy.shelve],
    ["shelve offload", versioned.shelveOffload, legacy.shelveOffload],
    ["unshelve", versioned.unshelve, legacy.unshelve],
    ["soft delete", versioned.softDelete, legacy.softDelete],
    ["restore", versioned.restore, legacy.restore],
    ["delete", versioned.delete, legacy.delete],
  ];
  for (const [name, v, l] of twins) {
    test(name, () => {
      expect(booked(v)).toEqual(booked(l));
    });
  }

  test("under the legacy type, with the notification's own id, instant and type as sent", () => {
    const event = consumedSample(versioned.powerOff);
    expect(event).toMatchObject({
      event_id: String(versioned.powerOff.message_id),
      timestamp: "2026-10-03T12:00:05.124Z",
      event_type: "compute.instance.power_off.end",
      resource_type: "instance",
      resource_id: "9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
      project_id: "3c9e5b7a1d2f4e6a8b0c2d4e6f8a0b1c",
      payload: { state: "shutoff", size: { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1.small" } },
    });
    expect(event.payload.provider).toMatchObject({
      publisher_id: "nova-compute:compute-01",
      event_type_as_sent: "instance.power_off.end",
    });
  });

  test("twins name one transition; the counters keep the type as sent", () => {
    const v = mapSample(versioned.shelve);
    const l = mapSample(legacy.shelve);
    if (v.kind !== "consumed" || l.kind !== "consumed") throw new Error("not consumed");
    expect(v.transition).toBe(l.transition);
    expect(v.transition).not.toBeNull();
    expect(v.event_type).toBe("instance.shelve.end");
    expect(mapSample(versioned.unshelve)).not.toMatchObject({ transition: v.transition });
  });
});

describe("what maps to nothing", () => {
  test("versioned types without a booked legacy twin", () => {
    for (const message of [versioned.update, versioned.createStart, versioned.resizeEnd]) {
      expect(mapSample(message)).toMatchObject({ kind: "skipped", event_type: message.event_type });
    }
  });

  test("an instance.* type without a versioned payload, and a versioned payload under a legacy type", () => {
    expect(mapSample({ ...versioned.powerOff, payload: { uuid: "x" } })).toMatchObject({
      kind: "skipped",
      reason: "an instance.* notification without a versioned payload",
    });
    expect(
      mapSample({ ...legacy.powerOff, payload: versioned.powerOff.payload as JsonObject }),
    ).toMatchObject({
      kind: "skipped",
      reason: "a versioned payload under a legacy type",
    });
  });

  test("the resize family is named by phase; every other type by its legacy suffix", () => {
    expect(legacyTwinOf("instance.resize_finish.end")).toBe("compute.instance.finish_resize.end");
    expect(legacyTwinOf("instance.resize_confirm.end")).toBe("compute.instance.resize.confirm.end");
    expect(legacyTwinOf("instance.resize_revert.end")).toBe("compute.instance.resize.revert.end");
    expect(legacyTwinOf("instance.suspend.end")).toBe("compute.instance.suspend.end");
    expect(legacyTwinOf("instance.resize.end")).toBeNull();
    expect(legacyTwinOf("instance.resize_prep.end")).toBeNull();
  });
});
