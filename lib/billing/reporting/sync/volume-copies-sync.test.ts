import { afterAll, beforeAll, expect, test } from "bun:test";
import { inKeyOrder, type SeenResource, seenResource } from "../../../../harness/reporting/seen-resource.ts";
import { openSyncCloud, type SyncCloud } from "../../../../harness/reporting/sync-cloud.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import { extraTypes } from "../../simulator/extra-types.ts";
import { generateMonth } from "../../simulator/generate-month.ts";
import { entryLines, monthStream } from "../../simulator/month-stream.ts";
import { streamEvents } from "../../simulator/stream-events.ts";
import { pgInstant } from "../database.ts";

/**
 * Snapshots and backups are reconciled like every listed type (decision 182): a cloud whose copies
 * no notification reached (cinder's notifications off, or a collector not bound to them) gets them
 * from a sync, at the platform's creation instants, sized and owned as the listing says; a sync over
 * an unchanged platform writes nothing.
 */

const period = parsePeriod("2026-10");
const cloud = "cloud-1";
const month = generateMonth({ seed: 9, period, cloud, scale: { tenants: 6 }, extraTypes: [...extraTypes] });
const isCopy = (type: string) => type === "volume_snapshot" || type === "volume_backup";
const at = "2026-10-26T00:00:00.000Z";
const atMs = Date.parse(at);
const events = [...streamEvents(monthStream(month, []).published.flatMap(entryLines), cloud)].filter(
  (e) => !isCopy(e.resource_type) && e.timestamp < at,
);

let cloudUnderTest: SyncCloud;
beforeAll(async () => {
  cloudUnderTest = await openSyncCloud(month, cloud);
  cloudUnderTest.api.at(atMs);
}, 120_000);
afterAll(async () => {
  await cloudUnderTest.close();
});

interface Seen extends SeenResource {
  created_at: string | null;
}

test("a sync books the snapshots and backups the platform lists, from their creation on", async () => {
  const { db, api } = cloudUnderTest;
  const { ingest, sync } = cloudUnderTest.app(0);
  await ingest(events);

  const platform: Seen[] = inKeyOrder(
    (["volume_snapshot", "volume_backup"] as const).flatMap((type) =>
      api.view.live(type, atMs).map((live) => ({
        ...seenResource({ ...live.truth, resource_type: type, resource_id: live.resource.resource_id }),
        created_at: new Date(live.created.at).toISOString(),
      })),
    ),
  );
  const live = (type: string) => platform.filter((p) => p.key.startsWith(`${type}/`)).length;
  expect([live("volume_snapshot"), live("volume_backup")].every((n) => n > 0)).toBe(true);

  const first = await sync(at);
  expect(first).toMatchObject({ status: "succeeded", rejected: 0 });
  const counts = (type: string) => first.resource_types.find((t) => t.resource_type === type);
  for (const type of ["volume_snapshot", "volume_backup"]) {
    expect(counts(type)).toMatchObject({ observed: live(type), created: live(type), updated: 0, deleted: 0 });
  }
  const rows = await db.sql<
    {
      resource_type: string;
      resource_id: string;
      state: string;
      project_id: string;
      size: JsonObject;
      created_at: string;
    }[]
  >`
    select resource_type, resource_id, state, project_id, size, created_at from current_resources
    where cloud = ${cloud} and resource_type in ('volume_snapshot', 'volume_backup') and deleted_at is null`;
  const projected: Seen[] = inKeyOrder(
    rows.map((r) => ({ ...seenResource(r), created_at: pgInstant(r.created_at) })),
  );
  expect(projected).toEqual(platform);

  api.at(atMs + 60_000);
  const again = await sync("2026-10-26T00:01:00.000Z");
  expect(again).toMatchObject({ created: 0, updated: 0, deleted: 0, accepted: 0 });
}, 120_000);
