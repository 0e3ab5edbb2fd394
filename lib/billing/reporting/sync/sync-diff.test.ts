import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { CanonicalEvent } from "../../events/event.ts";
import { validateEvent } from "../../events/validate.ts";
import type { HistoryEvent } from "../../history/event-order.ts";
import { foldHistory } from "../../history/fold.ts";
import { replaceSizeNames, type SizeNameTable, sizeNameTable } from "../ingest/size-names.ts";
import type { Observation, ObservedDeletion, ObservedResource } from "./observation.ts";
import { diffObservation, type ProjectedResource, type SyncDiffOptions } from "./sync-diff.ts";

const at = "2026-10-15T12:00:00.000Z";
const base: SyncDiffOptions = {
  cloud: "cloud-1",
  platform: "platform_a",
  at,
  settleMs: 60_000,
  runId: "run-1",
  names: new Map(),
};

const small: JsonObject = { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1.small" };
const large: JsonObject = { vcpus: 4, ram_gb: 8, disk_gb: 80, flavor: "m1.large" };

/** The instance both sides describe unless a test says otherwise: active, small, p1's since Oct 1. */
const instance = {
  resource_type: "instance",
  project_id: "p1",
  state: "active",
  size: small,
  created_at: "2026-10-01T00:00:00.000Z",
};

function observed(id: string, over: Partial<ObservedResource> = {}): ObservedResource {
  return {
    ...instance,
    resource_id: id,
    changed_at: "2026-10-02T00:00:00.000Z",
    in_transition: false,
    provider: { status: "ACTIVE" },
    ...over,
  };
}

function row(id: string, over: Partial<ProjectedResource> = {}): ProjectedResource {
  return {
    ...instance,
    resource_id: id,
    deleted_at: null,
    last_event_at: "2026-10-01T00:00:00.000Z",
    ...over,
  };
}

const observation = (
  resources: ObservedResource[],
  deletions: ObservedDeletion[] = [],
  types = ["instance"],
): Observation => ({ resource_types: types, resources, deletions });

const brief = (e: CanonicalEvent) => [e.event_type, e.resource_id, e.timestamp, e.project_id];

describe("diffObservation", () => {
  test("a cloud the projection agrees with gives no event", () => {
    const plan = diffObservation(observation([observed("a")]), [row("a")], base);
    expect(plan.events).toEqual([]);
    expect(plan.counts).toEqual([
      {
        resource_type: "instance",
        observed: 1,
        unchanged: 1,
        created: 0,
        updated: 0,
        deleted: 0,
        deferred: 0,
        settling: 0,
      },
    ]);
  });

  test("create at the platform's creation instant, update and delete at the run instant", () => {
    const plan = diffObservation(
      observation([
        observed("new"),
        observed("resized", { size: large }),
        observed("moved", { project_id: "p2" }),
      ]),
      [row("resized"), row("moved"), row("gone")],
      base,
    );
    expect(plan.events.map(brief)).toEqual([
      ["sync.delete", "gone", at, "p1"],
      ["sync.update", "moved", at, "p2"],
      ["sync.create", "new", "2026-10-01T00:00:00.000Z", "p1"],
      ["sync.update", "resized", at, "p1"],
    ]);
    const create = plan.events.find((e) => e.resource_id === "new");
    expect(create).toEqual({
      event_id: create?.event_id ?? "",
      timestamp: "2026-10-01T00:00:00.000Z",
      event_type: "sync.create",
      platform: "platform_a",
      cloud: "cloud-1",
      resource_type: "instance",
      resource_id: "new",
      project_id: "p1",
      source: "reconciliation",
      payload: { state: "active", size: small, provider: { status: "ACTIVE", sync_run: "run-1" } },
    });
    expect(create?.event_id).toMatch(/^platform_a:[0-9a-f]{64}$/);
    expect(plan.events.find((e) => e.resource_id === "gone")?.payload).toEqual({
      provider: { sync_run: "run-1" },
    });
  });

  test("a dated deletion is booked at its instant", () => {
    const plan = diffObservation(
      observation(
        [],
        [
          {
            resource_type: "instance",
            resource_id: "a",
            project_id: "p1",
            deleted_at: "2026-10-15T06:00:00.000Z",
          },
        ],
      ),
      [row("a")],
      base,
    );
    expect(plan.events.map(brief)).toEqual([["sync.delete", "a", "2026-10-15T06:00:00.000Z", "p1"]]);
  });

  test("a deletion of a resource the projection never knew, or already deleted, is left alone", () => {
    const deletions = ["a", "b"].map((id) => ({
      resource_type: "instance",
      resource_id: id,
      project_id: "p1",
      deleted_at: "2026-10-15T06:00:00.000Z",
    }));
    const plan = diffObservation(
      observation([], deletions),
      [row("b", { state: "deleted", deleted_at: "2026-10-15T06:00:00.000Z" })],
      base,
    );
    expect(plan.events).toEqual([]);
  });

  test("a history that starts without its create gets one at the platform's creation instant", () => {
    const plan = diffObservation(
      observation([observed("a"), observed("b", { state: "shutoff" })]),
      [row("a", { created_at: null }), row("b", { created_at: null })],
      base,
    );
    expect(plan.events.map(brief)).toEqual([
      ["sync.create", "a", "2026-10-01T00:00:00.000Z", "p1"],
      ["sync.create", "b", "2026-10-01T00:00:00.000Z", "p1"],
      ["sync.update", "b", at, "p1"],
    ]);
  });

  test("a resource listed again after its row was deleted comes back at the run instant", () => {
    const plan = diffObservation(
      observation([observed("a")]),
      [
        row("a", {
          state: "deleted",
          deleted_at: "2026-10-10T00:00:00.000Z",
          last_event_at: "2026-10-10T00:00:00.000Z",
        }),
      ],
      base,
    );
    expect(plan.events.map(brief)).toEqual([["sync.create", "a", at, "p1"]]);
  });

  test("without a creation instant a create is booked at the run instant", () => {
    const plan = diffObservation(
      observation([observed("a", { created_at: null, changed_at: null })]),
      [],
      base,
    );
    expect(plan.events.map(brief)).toEqual([["sync.create", "a", at, "p1"]]);
  });

  test("what changed at or after the run instant is left alone even with the window off", () => {
    const plan = diffObservation(
      observation([
        observed("created-later", { created_at: "2026-10-16T00:00:00.000Z", changed_at: null }),
        observed("changed-at-run", { size: large, changed_at: at }),
        observed("recorded-at-run", { size: large }),
      ]),
      [row("changed-at-run"), row("recorded-at-run", { last_event_at: at })],
      { ...base, settleMs: 0 },
    );
    expect(plan.events).toEqual([]);
    expect(plan.counts[0]).toMatchObject({ settling: 3 });
  });

  test("in transition: deferred whatever differs", () => {
    const plan = diffObservation(
      observation([
        observed("a", { in_transition: true, size: large }),
        observed("b", { in_transition: true }),
      ]),
      [row("a")],
      base,
    );
    expect(plan.events).toEqual([]);
    expect(plan.counts[0]).toMatchObject({ observed: 2, deferred: 2 });
  });

  test("settle window: nothing the platform or the projection changed within it is corrected", () => {
    const justBefore = "2026-10-15T11:59:30.000Z";
    const plan = diffObservation(
      observation(
        [
          observed("platform-changed", { size: large, changed_at: justBefore }),
          observed("just-created", { created_at: justBefore, changed_at: justBefore }),
          observed("event-recorded", { size: large }),
          observed("changed-after-run", { size: large, changed_at: "2026-10-15T13:00:00.000Z" }),
        ],
        [
          {
            resource_type: "instance",
            resource_id: "just-deleted",
            project_id: "p1",
            deleted_at: justBefore,
          },
        ],
      ),
      [
        row("platform-changed"),
        row("event-recorded", { last_event_at: justBefore }),
        row("changed-after-run"),
        row("just-deleted"),
        row("gone-but-recent", { last_event_at: justBefore }),
      ],
      base,
    );
    expect(plan.events).toEqual([]);
    expect(plan.counts[0]).toMatchObject({ observed: 4, settling: 6 });
  });

  test("the window ends where it says: a change exactly one window back settles, one before does not", () => {
    const edge = "2026-10-15T11:59:00.000Z";
    const before = "2026-10-15T11:58:59.999Z";
    const plan = diffObservation(
      observation([
        observed("edge", { size: large, changed_at: edge }),
        observed("before", { size: large, changed_at: before }),
      ]),
      [row("edge"), row("before")],
      base,
    );
    expect(plan.events.map(brief)).toEqual([["sync.update", "before", at, "p1"]]);
  });

  test("settle 0 turns the window off", () => {
    const plan = diffObservation(
      observation([observed("a", { size: large, changed_at: "2026-10-15T11:59:59.999Z" })]),
      [row("a", { last_event_at: "2026-10-15T11:59:59.999Z" })],
      { ...base, settleMs: 0 },
    );
    expect(plan.events.map(brief)).toEqual([["sync.update", "a", at, "p1"]]);
  });

  test("sizes are compared after the cloud's names; the event carries the size as the platform lists it", () => {
    const names = new Map([["volume", sizeNameTable([{ member: "type", value: "id-ssd", name: "ssd" }])]]);
    const volume = (id: string, type: string) =>
      observed(id, { resource_type: "volume", state: "available", size: { size_gb: 10, type } });
    const plan = diffObservation(
      observation([volume("named", "id-ssd"), volume("by-id", "id-ssd")], [], ["volume"]),
      [
        row("named", { resource_type: "volume", state: "available", size: { size_gb: 10, type: "ssd" } }),
        row("by-id", { resource_type: "volume", state: "available", size: { size_gb: 10, type: "id-ssd" } }),
      ],
      { ...base, names },
    );
    expect(plan.events.map(brief)).toEqual([["sync.update", "by-id", at, "p1"]]);
    expect(plan.events[0]?.payload.size).toEqual({ size_gb: 10, type: "id-ssd" });
  });

  test("size members the adapter does not report do not count as a difference", () => {
    const plan = diffObservation(
      observation([observed("a")]),
      [row("a", { size: { ...small, ephemeral_gb: 0 } })],
      base,
    );
    expect(plan.events).toEqual([]);
  });

  test("rows of types the adapter does not list are never touched", () => {
    const plan = diffObservation(observation([]), [row("x", { resource_type: "router" }), row("a")], base);
    expect(plan.events.map(brief)).toEqual([["sync.delete", "a", at, "p1"]]);
    expect(plan.counts.map((c) => c.resource_type)).toEqual(["instance"]);
  });

  test("a run repeated at the same instant derives the same event ids", () => {
    const one = diffObservation(observation([observed("a", { size: large })]), [row("a")], base);
    const two = diffObservation(observation([observed("a", { size: large })]), [row("a")], {
      ...base,
      runId: "run-2",
    });
    expect(two.events.map((e) => e.event_id)).toEqual(one.events.map((e) => e.event_id));
  });
});

// ---- properties: the diff folded into the history leaves nothing to correct ----

const keyText = (k: { resource_type: string; resource_id: string }) => `${k.resource_type}/${k.resource_id}`;
const types = ["instance", "volume"] as const;
const ids = ["r1", "r2", "r3", "r4", "r5"] as const;
const instants = [
  "2026-10-01T00:00:00.000Z",
  "2026-10-05T00:00:00.000Z",
  "2026-10-10T00:00:00.000Z",
  "2026-10-15T11:59:30.000Z",
] as const;
const anInstant = fc.constantFrom(...instants);
const aSize = fc.record({ flavor: fc.constantFrom("a", "b", "id-c"), gb: fc.constantFrom(1, 2) });
const aState = fc.constantFrom("active", "shutoff");
const aProject = fc.constantFrom("p1", "p2");
const aKey = fc.record({ resource_type: fc.constantFrom(...types), resource_id: fc.constantFrom(...ids) });

const aHistoryEvent = fc.record({
  key: aKey,
  timestamp: anInstant,
  category: fc.constantFrom("create", "update", "update", "delete"),
  state: aState,
  size: aSize,
  project_id: aProject,
});

const anObserved = fc.record({
  key: aKey,
  state: aState,
  size: aSize,
  project_id: aProject,
  created_at: fc.option(anInstant, { nil: null }),
  changed_at: fc.option(anInstant, { nil: null }),
  in_transition: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

const aDeletion = fc.record({ key: aKey, deleted_at: anInstant, project_id: aProject });

interface World {
  history: Map<string, HistoryEvent[]>;
  observation: Observation;
}

const aWorld = fc
  .record({
    history: fc.array(aHistoryEvent, { maxLength: 20 }),
    observed: fc.uniqueArray(anObserved, { maxLength: 10, selector: (o) => keyText(o.key) }),
    deletions: fc.uniqueArray(aDeletion, { maxLength: 4, selector: (d) => keyText(d.key) }),
    listed: fc.subarray([...types], { minLength: 1 }),
  })
  .map(({ history, observed: obs, deletions, listed }): World => {
    const byKey = new Map<string, HistoryEvent[]>();
    history.forEach((h, i) => {
      const list = byKey.get(keyText(h.key)) ?? [];
      const type = `test.${h.category}`;
      list.push({
        event_id: `c${String(i).padStart(3, "0")}`,
        timestamp: h.timestamp,
        event_type: type,
        project_id: h.project_id,
        payload:
          h.category === "delete" ? {} : { state: h.state, size: { flavor: h.size.flavor, gb: h.size.gb } },
      });
      byKey.set(keyText(h.key), list);
    });
    return {
      history: byKey,
      observation: {
        resource_types: listed,
        resources: obs.map((o) => ({
          ...o.key,
          project_id: o.project_id,
          state: o.state,
          size: { flavor: o.size.flavor, gb: o.size.gb },
          created_at: o.created_at,
          changed_at: o.changed_at,
          in_transition: o.in_transition,
          provider: {},
        })),
        deletions: deletions.map((d) => ({ ...d.key, project_id: d.project_id, deleted_at: d.deleted_at })),
      },
    };
  });

const names: ReadonlyMap<string, SizeNameTable> = new Map([
  ["volume", sizeNameTable([{ member: "flavor", value: "id-c", name: "c" }])],
]);

/** The projection of each stored history, as the fold makes it. */
function project(history: Map<string, HistoryEvent[]>): ProjectedResource[] {
  const rows: ProjectedResource[] = [];
  for (const [key, events] of history) {
    const state = foldHistory(events).state;
    if (state === null) continue;
    const [resource_type, resource_id] = key.split("/") as [string, string];
    rows.push({
      resource_type,
      resource_id,
      project_id: state.project_id,
      state: state.state,
      size: state.size,
      created_at: state.created_at,
      deleted_at: state.deleted_at,
      last_event_at: state.last.timestamp,
    });
  }
  return rows;
}

/** Stores the plan's events as ingest would: names replaced, duplicates (same id and instant) once. */
function store(history: Map<string, HistoryEvent[]>, events: readonly CanonicalEvent[]) {
  const next = new Map([...history].map(([k, v]) => [k, [...v]]));
  for (const e of events) {
    const list = next.get(keyText(e)) ?? [];
    if (list.some((h) => h.event_id === e.event_id && h.timestamp === e.timestamp)) continue;
    const table = names.get(e.resource_type);
    list.push({ ...e, payload: replaceSizeNames(e.payload, table) });
    next.set(keyText(e), list);
  }
  return next;
}

const quiet = { ...base, names, settleMs: 0 };

/** A property of the diff, checked over 500 random worlds. */
function forEveryWorld(check: (world: World) => void) {
  fc.assert(fc.property(aWorld, check), { numRuns: 500 });
}

describe("diffObservation properties", () => {
  test("once its events are stored, the same run finds nothing left to correct", () => {
    forEveryWorld(({ history, observation: obs }) => {
      const first = diffObservation(obs, project(history), quiet);
      const second = diffObservation(obs, project(store(history, first.events)), quiet);
      expect(second.events).toEqual([]);
    });
  });

  test("a later run over an unchanged platform writes nothing", () => {
    forEveryWorld(({ history, observation: obs }) => {
      const first = diffObservation(obs, project(history), quiet);
      const stored = store(history, first.events);
      const later = diffObservation(obs, project(stored), { ...quiet, at: "2026-10-16T00:00:00.000Z" });
      expect(later.events).toEqual([]);
    });
  });

  test("afterwards every corrected resource agrees with the platform, and what it no longer lists is deleted", () => {
    forEveryWorld(({ history, observation: obs }) => {
      const plan = diffObservation(obs, project(history), quiet);
      const rows = new Map(project(store(history, plan.events)).map((r) => [keyText(r), r]));
      const listed = new Set(obs.resource_types);
      const live = new Map(
        obs.resources.filter((r) => listed.has(r.resource_type)).map((r) => [keyText(r), r]),
      );
      for (const [key, r] of live) {
        if (r.in_transition) continue;
        const got = rows.get(key);
        expect({ state: got?.state, project: got?.project_id, size: got?.size }).toEqual({
          state: r.state,
          project: r.project_id,
          size: replaceSizeNames({ size: r.size }, names.get(r.resource_type)).size,
        });
      }
      for (const [key, r] of rows) {
        if (listed.has(r.resource_type) && !live.has(key)) expect(r.state).toBe("deleted");
      }
    });
  });

  test("nothing deferred or inside the settle window is touched", () => {
    forEveryWorld(({ history, observation: obs }) => {
      const rows = project(history);
      const plan = diffObservation(obs, rows, base);
      const cutoff = "2026-10-15T11:59:00.000Z";
      const untouchable = new Set<string>();
      for (const r of obs.resources) {
        if (r.in_transition || (r.changed_at ?? "") >= cutoff || (r.created_at ?? "") >= cutoff)
          untouchable.add(keyText(r));
      }
      const live = new Set(obs.resources.map(keyText));
      for (const d of obs.deletions)
        if (d.deleted_at >= cutoff && !live.has(keyText(d))) untouchable.add(keyText(d));
      for (const r of rows) if (r.last_event_at >= cutoff) untouchable.add(keyText(r));
      for (const e of plan.events) expect(untouchable.has(keyText(e))).toBe(false);
    });
  });

  test("the plan does not depend on the order things were listed in, and every event is valid", () => {
    fc.assert(
      fc.property(aWorld, fc.integer(), ({ history, observation: obs }, seed) => {
        const rows = project(history);
        const shuffled = <T>(list: readonly T[]) =>
          [...list]
            .map((v, i) => ({ v, k: (i * 7919 + seed) % 101 }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.v);
        const a = diffObservation(obs, rows, base);
        const b = diffObservation(
          { ...obs, resources: shuffled(obs.resources), deletions: shuffled(obs.deletions) },
          shuffled(rows),
          base,
        );
        expect(b).toEqual(a);
        for (const e of a.events) expect(validateEvent(e, "body")).toEqual({ ok: true, event: e });
      }),
      { numRuns: 300 },
    );
  });
});
