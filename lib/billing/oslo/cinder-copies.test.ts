import { describe, expect, test } from "bun:test";
import { backupSamples, snapshotSamples } from "../../../fixtures/oslo/cinder-copies-samples.ts";
import { consumedSample, mapSample } from "../../../harness/oslo/map-sample.ts";
import { checkJsonSchema } from "../../foundation/json/json-schema-check.ts";
import type { JsonValue } from "../../foundation/json/json-value.ts";

/** The size schemas of the copies, as the reporting migration registers them. */
const migration = await Bun.file(
  new URL("../../../drizzle/reporting/0004_volume_copies.sql", import.meta.url),
).text();
function schemaOf(resourceType: string): JsonValue {
  const match = new RegExp(`'platform_a', '${resourceType}', '([^']+)'::jsonb`).exec(migration);
  return JSON.parse(match?.[1] ?? "null") as JsonValue;
}

test.each([
  {
    samples: snapshotSamples,
    sized: "by its volume's GiB",
    event_type: "snapshot.create.end",
    resource_type: "volume_snapshot",
    resource_id: "3d5f7a9c-1e3b-4d5f-9a1c-3e5b7d9f1a3c",
    provider: { volume_id: "4b6d8f0a-2c4e-4a6b-9d8f-0a2c4e6b8d0f" },
  },
  {
    samples: backupSamples,
    sized: "as cinder reports it",
    event_type: "backup.create.end",
    resource_type: "volume_backup",
    resource_id: "7c9e1b3d-5f7a-4c9e-8b3d-5f7a9c1e3b5d",
    provider: {},
  },
])("create.end books the $resource_type, sized $sized, as the registered schema admits", (copy) => {
  const { samples, sized: _sized, provider, ...booked } = copy;
  const event = consumedSample(samples.create);
  expect(event).toMatchObject({
    ...booked,
    project_id: "3c9e5b7a1d2f4e6a8b0c2d4e6f8a0b1c",
    payload: { state: "available", size: { size_gb: 50 }, provider },
  });
  expect(checkJsonSchema(schemaOf(booked.resource_type), event.payload.size as JsonValue, "size")).toEqual(
    [],
  );
});

describe("snapshots", () => {
  test("delete.end ends it; the .start halves map to nothing", () => {
    expect(consumedSample(snapshotSamples.delete).payload).not.toHaveProperty("state");
    expect(mapSample(snapshotSamples.createStart).kind).toBe("skipped");
    expect(mapSample(snapshotSamples.deleteStart).kind).toBe("skipped");
  });
});

describe("backups", () => {
  test("a restore states the backup as it is; delete.end ends it; create.start maps to nothing", () => {
    expect(consumedSample(backupSamples.restoreEnd).payload).toMatchObject({ state: "available" });
    expect(consumedSample(backupSamples.delete).payload).not.toHaveProperty("size");
    expect(mapSample(backupSamples.createStart).kind).toBe("skipped");
  });
});
