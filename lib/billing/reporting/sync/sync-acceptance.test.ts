import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ReportingTestDatabase } from "../../../../harness/reporting/reporting-database.ts";
import { inKeyOrder, type SeenResource, seenResource } from "../../../../harness/reporting/seen-resource.ts";
import { openSyncCloud, type SyncCloud } from "../../../../harness/reporting/sync-cloud.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import type { CanonicalEvent } from "../../events/event.ts";
import type { HistoryEvent } from "../../history/event-order.ts";
import { meterResource } from "../../metering/meter-resource.ts";
import { volumeTypes } from "../../simulator/catalog.ts";
import { generateMonth } from "../../simulator/generate-month.ts";
import type { ResourceType } from "../../simulator/month.ts";
import { entryLines, monthStream } from "../../simulator/month-stream.ts";
import type { PlatformApiServer } from "../../simulator/platform-api/platform-api.ts";
import { streamEvents } from "../../simulator/stream-events.ts";
import { pgInstant } from "../database.ts";
import type { SyncResult } from "./sync-run.ts";

/**
 * Issue 14's acceptance: a month the collector booked with `missing-create` and `refused-shapes`,
 * synced against the fake platform API at an instant inside it, ends with the projection saying what the
 * platform says; volume type ids become names from the sync on while earlier intervals keep the id;
 * listeners and pools an operator added appear only with the sync and are metered from it on; a second
 * sync over an unchanged platform writes nothing; with a settle window, a change younger than it waits
 * for the next run. The engine billing them from the sync on is the `reconciled` scenario's proof.
 */

const period = parsePeriod("2026-10");
const cloud = "cloud-1";
const month = generateMonth({ seed: 7, period, cloud, scale: { tenants: 4 } });
const events = [
  ...streamEvents(
    monthStream(month, ["missing-create", "refused-shapes"]).published.flatMap(entryLines),
    cloud,
  ),
];
const at = "2026-10-25T00:00:00.000Z";
const atMs = Date.parse(at);
const types: ResourceType[] = ["instance", "volume", "floating_ip", "image", "loadbalancer"];
const typeName = new Map(volumeTypes.map((t) => [t.id, t.name]));

let syncCloud: SyncCloud;
let db: ReportingTestDatabase;
let api: PlatformApiServer;
// PostgreSQL may start here, slowly on a loaded machine.
beforeAll(async () => {
  syncCloud = await openSyncCloud(month, cloud);
  ({ db, api } = syncCloud);
}, 120_000);
afterAll(async () => {
  await syncCloud.close();
});

/** What the platform shows at `at`, with volume types by name (the cloud's size names). */
function platformAt(ms: number): SeenResource[] {
  return inKeyOrder(
    types.flatMap((type) =>
      api.view.live(type, ms).map((live) => {
        const size = { ...live.truth.size };
        if (type === "volume") size.type = typeName.get(String(size.type)) ?? size.type ?? null;
        return seenResource({
          ...live.truth,
          resource_type: type,
          resource_id: live.resource.resource_id,
          size,
        });
      }),
    ),
  );
}

async function projection(): Promise<SeenResource[]> {
  const rows = await db.sql<
    { resource_type: string; resource_id: string; state: string; project_id: string; size: JsonObject }[]
  >`
    select resource_type, resource_id, state, project_id, size from current_resources
    where cloud = ${cloud} and deleted_at is null`;
  return inKeyOrder(rows.map(seenResource));
}

async function historyOf(
  resourceType: string,
  resourceId: string,
): Promise<(HistoryEvent & { source: string })[]> {
  const rows = await db.sql<
    (Omit<HistoryEvent, "payload"> & { payload: CanonicalEvent["payload"]; source: string })[]
  >`
    select event_id, timestamp::text as timestamp, event_type, project_id, payload, source from events
    where cloud = ${cloud} and resource_type = ${resourceType} and resource_id = ${resourceId}
    order by timestamp`;
  return rows.map((r) => ({ ...r, timestamp: pgInstant(r.timestamp) }));
}

test("a month with missing-create and refused-shapes is repaired by a sync; listeners and pools are booked from it on", async () => {
  const { ingest, sync } = syncCloud.app(0);

  // The collector has booked the month up to the sync's instant.
  await ingest(events.filter((e) => e.timestamp < at));
  const platform = platformAt(atMs);
  const before = await projection();
  expect(before).not.toEqual(platform);
  const withoutCreate =
    await db.sql`select count(*)::int as n from current_resources where created_at is null`;
  expect(withoutCreate[0]?.n).toBeGreaterThan(0);

  // An operator adds listeners and pools to a load balancer two hours before the sync.
  const lb = api.view
    .live("loadbalancer", atMs - 7_200_000)
    .find((l) =>
      api.view.live("loadbalancer", atMs).some((x) => x.resource.resource_id === l.resource.resource_id),
    );
  if (lb === undefined) throw new Error("no load balancer lives through the sync");
  const lbId = lb.resource.resource_id;
  api.at(atMs - 7_200_000);
  api.setLoadBalancerMembers(lbId, { listeners: 2, pools: 1 });
  api.at(atMs);

  const first = await sync(at);
  expect(first).toMatchObject({ status: "succeeded", rejected: 0, size_names: 3 });
  expect(first.created).toBeGreaterThan(0);
  expect(first.updated).toBeGreaterThan(0);
  const expected = platformAt(atMs).map((s) =>
    s.key === `loadbalancer/${lbId}` ? { ...s, size: { ...s.size, listeners: 2, pools: 1 } } : s,
  );
  expect(await projection()).toEqual(expected);
  const stillWithout =
    await db.sql`select count(*)::int as n from current_resources where created_at is null and deleted_at is null`;
  expect(stillWithout[0]?.n).toBe(0);

  // A second sync right after the first, nothing changed on the platform: no event.
  api.at(atMs + 60_000);
  const second = await sync("2026-10-25T00:01:00.000Z");
  expect(second).toMatchObject({ created: 0, updated: 0, deleted: 0, accepted: 0, duplicates: 0 });

  // The month goes on; metering reads the history.
  await ingest(events.filter((e) => e.timestamp >= at));
  const lbHistory = await historyOf("loadbalancer", lbId);
  const lbMetered = meterResource(
    { cloud, platform: "platform_a", resource_type: "loadbalancer", resource_id: lbId },
    lbHistory,
    period,
  );
  const sizes = lbMetered?.intervals.map((i) => [i.from < at ? "before" : "after", i.size]) ?? [];
  expect(
    sizes.filter(([when]) => when === "before").every(([, size]) => (size as JsonObject).listeners === 0),
  ).toBe(true);
  expect(sizes.some(([when]) => when === "before")).toBe(true);
  const lbFlavor: JsonObject =
    typeof lb.truth.size.flavor === "string" ? { flavor: lb.truth.size.flavor } : {};
  expect(sizes.filter(([when]) => when === "after")).toEqual([
    ["after", { listeners: 2, pools: 1, ...lbFlavor }],
  ]);
  expect(lbMetered?.intervals.find((i) => i.from === at)).toBeDefined();

  // Volume types: the id until the sync, the name from it on, as reported kept beside it.
  // A volume the collector booked (by type id) before the sync.
  let volumeId: string | null = null;
  let history: Awaited<ReturnType<typeof historyOf>> = [];
  for (const live of api.view.live("volume", atMs)) {
    history = await historyOf("volume", live.resource.resource_id);
    if (history.some((e) => e.source === "collector" && e.timestamp < at)) {
      volumeId = live.resource.resource_id;
      break;
    }
  }
  const volume = api.view.live("volume", atMs).find((v) => v.resource.resource_id === volumeId);
  if (volumeId === null || volume === undefined)
    throw new Error("no volume the collector booked before the sync");
  const metered = meterResource(
    { cloud, platform: "platform_a", resource_type: "volume", resource_id: volumeId },
    history,
    period,
  );
  const typeId = String(volume.truth.size.type);
  const intervals = metered?.intervals ?? [];
  expect([intervals.some((i) => i.to <= at), intervals.some((i) => i.from >= at)]).toEqual([true, true]);
  expect(intervals.filter((i) => i.to <= at).every((i) => i.size?.type === typeId)).toBe(true);
  expect(intervals.filter((i) => i.from >= at).every((i) => i.size?.type === typeName.get(typeId))).toBe(
    true,
  );
  const update = history.find((e) => e.event_type === "sync.update");
  expect(update).toMatchObject({
    timestamp: at,
    source: "reconciliation",
    payload: { provider: { size_as_reported: { type: typeId } } },
  });
}, 120_000);

test("with a settle window, a change younger than the window is left alone and booked by the next run", async () => {
  await db.reset();
  const settleS = 3600;
  const synced = syncCloud.app(settleS);
  const ingest = synced.ingest;
  const sync = async (instant: string) => {
    api.at(Date.parse(instant));
    return synced.sync(instant);
  };
  const later = "2026-10-25T02:00:00.000Z";
  const lbSize = async (id: string) =>
    (
      await db.sql<{ size: JsonObject }[]>`select size from current_resources
        where cloud = ${cloud} and resource_type = 'loadbalancer' and resource_id = ${id}`
    )[0]?.size;

  await ingest(events.filter((e) => e.timestamp < at));
  // An operator adds listeners and pools half an hour before the sync: inside the window.
  const lb = api.view
    .live("loadbalancer", atMs - 1_800_000)
    .find((l) =>
      api.view
        .live("loadbalancer", Date.parse(later))
        .some((x) => x.resource.resource_id === l.resource.resource_id),
    );
  if (lb === undefined) throw new Error("no load balancer lives through both syncs");
  const lbId = lb.resource.resource_id;
  api.at(atMs - 1_800_000);
  api.setLoadBalancerMembers(lbId, { listeners: 3, pools: 2 });

  const first = await sync(at);
  const lbCounts = (r: SyncResult) => r.resource_types.find((t) => t.resource_type === "loadbalancer");
  expect(first.status).toBe("succeeded");
  expect(lbCounts(first)).toMatchObject({ updated: 0 });
  expect(lbCounts(first)?.settling).toBeGreaterThanOrEqual(1);
  const flavor: JsonObject = typeof lb.truth.size.flavor === "string" ? { flavor: lb.truth.size.flavor } : {};
  expect(await lbSize(lbId)).toEqual({ listeners: 0, pools: 0, ...flavor });
  // The repair of missing-create needs no window: their last change is days old.
  expect(first.created).toBeGreaterThan(0);

  // Two hours on, the change is past the window: the next run books it, at its own instant.
  await ingest(events.filter((e) => e.timestamp >= at && e.timestamp < later));
  const second = await sync(later);
  expect(lbCounts(second)).toMatchObject({ updated: 1, settling: 0 });
  expect(await lbSize(lbId)).toEqual({ listeners: 3, pools: 2, ...flavor });
  const booked = (await historyOf("loadbalancer", lbId)).filter((e) => e.event_type === "sync.update");
  expect(booked.map((e) => [e.timestamp, e.source])).toEqual([[later, "reconciliation"]]);
}, 120_000);
