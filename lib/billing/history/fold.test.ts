import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { clipIntervals } from "./clip.ts";
import { comparePositions, type HistoryEvent, inHistoryOrder, positionOf } from "./event-order.ts";
import { foldHistory, type ResourceState, step } from "./fold.ts";

let seq = 0;
function ev(
  timestamp: string,
  event_type: string,
  payload: HistoryEvent["payload"] = {},
  project_id = "p1",
): HistoryEvent {
  seq += 1;
  return { event_id: `e${String(seq).padStart(4, "0")}`, timestamp, event_type, project_id, payload };
}
const small: JsonObject = { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1.small" };
const large: JsonObject = { vcpus: 4, ram_gb: 8, disk_gb: 80, flavor: "m1.large" };

describe("foldHistory", () => {
  test("create, resize, delete: one interval per size, closed by the delete", () => {
    const h = foldHistory([
      ev("2026-10-01T00:00:00.000Z", "compute.instance.create.end", { state: "active", size: small }),
      ev("2026-10-10T00:00:00.000Z", "compute.instance.finish_resize.end", { state: "active", size: large }),
      ev("2026-10-20T00:00:00.000Z", "compute.instance.delete.end"),
    ]);
    expect(h.intervals).toEqual([
      {
        from: "2026-10-01T00:00:00.000Z",
        to: "2026-10-10T00:00:00.000Z",
        state: "active",
        project_id: "p1",
        size: small,
      },
      {
        from: "2026-10-10T00:00:00.000Z",
        to: "2026-10-20T00:00:00.000Z",
        state: "active",
        project_id: "p1",
        size: large,
      },
    ]);
    expect(h.state?.state).toBe("deleted");
    expect(h.state?.deleted_at).toBe("2026-10-20T00:00:00.000Z");
    expect(h.state?.created_at).toBe("2026-10-01T00:00:00.000Z");
    expect(h.starts_without_create).toBe(false);
  });

  test("an update that repeats state and size (a daily audit) does not split", () => {
    const h = foldHistory([
      ev("2026-10-01T00:00:00.000Z", "compute.instance.create.end", { state: "active", size: small }),
      ev("2026-10-02T00:00:00.000Z", "compute.instance.exists", { state: "active", size: { ...small } }),
    ]);
    expect(h.intervals).toHaveLength(1);
    expect(h.intervals[0]?.to).toBeNull();
  });

  test("a state change or a transfer splits; size absent means unchanged", () => {
    const h = foldHistory([
      ev("2026-10-01T00:00:00.000Z", "compute.instance.create.end", { state: "active", size: small }),
      ev("2026-10-02T00:00:00.000Z", "compute.instance.power_off.end", { state: "shutoff" }),
      ev("2026-10-03T00:00:00.000Z", "volume.transfer.accept.end", { state: "shutoff" }, "p2"),
    ]);
    expect(h.intervals.map((i) => [i.state, i.project_id, i.size])).toEqual([
      ["active", "p1", small],
      ["shutoff", "p1", small],
      ["shutoff", "p2", small],
    ]);
  });

  test("a history without its create opens at its first event and says so", () => {
    const h = foldHistory([
      ev("2026-10-05T00:00:00.000Z", "compute.instance.exists", { state: "active", size: small }),
    ]);
    expect(h.starts_without_create).toBe(true);
    expect(h.state?.created_at).toBeNull();
    expect(h.intervals[0]?.from).toBe("2026-10-05T00:00:00.000Z");
  });

  test("updates after a delete change nothing; a later create brings the resource back", () => {
    const h = foldHistory([
      ev("2026-10-01T00:00:00.000Z", "volume.create.end", {
        state: "available",
        size: { size_gb: 10, type: "t" },
      }),
      ev("2026-10-02T00:00:00.000Z", "volume.delete.end"),
      ev("2026-10-03T00:00:00.000Z", "volume.resize.end", {
        state: "available",
        size: { size_gb: 20, type: "t" },
      }),
    ]);
    expect(h.state?.state).toBe("deleted");
    expect(h.state?.size).toEqual({ size_gb: 10, type: "t" });
    expect(h.intervals).toHaveLength(1);
    const back = foldHistory([
      ev("2026-10-01T00:00:00.000Z", "volume.create.end", { state: "available", size: { size_gb: 10 } }),
      ev("2026-10-02T00:00:00.000Z", "volume.delete.end"),
      ev("2026-10-04T00:00:00.000Z", "sync.create", { state: "available", size: { size_gb: 10 } }),
    ]);
    expect(back.state?.state).toBe("available");
    expect(back.state?.deleted_at).toBeNull();
    expect(back.intervals.map((i) => [i.from, i.to])).toEqual([
      ["2026-10-01T00:00:00.000Z", "2026-10-02T00:00:00.000Z"],
      ["2026-10-04T00:00:00.000Z", null],
    ]);
  });

  test("a delete forces `deleted` whatever its payload says, and create-delete at one instant leaves no interval", () => {
    const h = foldHistory([
      ev("2026-10-01T00:00:00.000Z", "image.delete", { state: "active" }),
      ev("2026-10-01T00:00:00.000Z", "image.create", { state: "active", size: { size_gb: 1 } }),
    ]);
    expect(h.state?.state).toBe("deleted");
    expect(h.intervals).toEqual([]);
  });
});

describe("clipIntervals", () => {
  const intervals = foldHistory([
    ev("2026-09-20T00:00:00.000Z", "compute.instance.create.end", { state: "active", size: small }),
    ev("2026-10-10T00:00:00.000Z", "compute.instance.power_off.end", { state: "shutoff" }),
  ]).intervals;

  test("clips to a half-open window and closes the open interval at its end", () => {
    expect(
      clipIntervals(intervals, "2026-10-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z").map((i) => [
        i.from,
        i.to,
      ]),
    ).toEqual([
      ["2026-10-01T00:00:00.000Z", "2026-10-10T00:00:00.000Z"],
      ["2026-10-10T00:00:00.000Z", "2026-11-01T00:00:00.000Z"],
    ]);
  });

  test("an event on the boundary belongs to the next window", () => {
    expect(clipIntervals(intervals, "2026-09-01T00:00:00.000Z", "2026-09-20T00:00:00.000Z")).toEqual([]);
    expect(clipIntervals(intervals, "2026-10-10T00:00:00.000Z", "2026-10-10T00:00:00.000Z")).toEqual([]);
  });
});

// Property tests: random histories of one resource.
const instants = fc
  .integer({ min: 0, max: 40 })
  .map((h) => new Date(Date.UTC(2026, 9, 1) + h * 3_600_000).toISOString());
const eventArb = fc.record({
  timestamp: instants,
  event_type: fc.constantFrom(
    "compute.instance.create.end",
    "compute.instance.exists",
    "compute.instance.power_off.end",
    "compute.instance.finish_resize.end",
    "compute.instance.delete.end",
    "sync.update",
  ),
  state: fc.constantFrom("active", "shutoff", null),
  size: fc.option(fc.constantFrom(small, large), { nil: undefined }),
  project_id: fc.constantFrom("p1", "p2"),
});
const historyArb = fc.array(eventArb, { minLength: 1, maxLength: 25 }).map((items) =>
  items.map(
    (it, i): HistoryEvent => ({
      event_id: `id-${i}`,
      timestamp: it.timestamp,
      event_type: it.event_type,
      project_id: it.project_id,
      payload: it.size === undefined ? { state: it.state } : { state: it.state, size: it.size },
    }),
  ),
);

describe("fold properties", () => {
  test("any arrival order folds to the same state and intervals", () => {
    fc.assert(
      fc.property(historyArb, fc.infiniteStream(fc.nat()), (events, noise) => {
        const shuffled = events
          .map((e) => ({ e, k: noise.next().value }))
          .sort((a, b) => a.k - b.k)
          .map(({ e }) => e);
        expect(foldHistory(shuffled)).toEqual(foldHistory(events));
      }),
    );
  });

  test("stepping event by event in history order equals the whole fold", () => {
    fc.assert(
      fc.property(historyArb, (events) => {
        let state: ResourceState | null = null;
        for (const e of inHistoryOrder(events)) state = step(state, e);
        expect(state).toEqual(foldHistory(events).state);
      }),
    );
  });

  test("intervals are ordered, non-empty, non-overlapping, and only the last may be open", () => {
    fc.assert(
      fc.property(historyArb, (events) => {
        const { intervals } = foldHistory(events);
        intervals.forEach((iv, i) => {
          if (iv.to !== null) expect(iv.from < iv.to).toBe(true);
          else expect(i).toBe(intervals.length - 1);
          const next = intervals[i + 1];
          if (next && iv.to !== null) expect(iv.to <= next.from).toBe(true);
          expect(iv.state).not.toBe("deleted");
        });
      }),
    );
  });

  test("positions order totally: antisymmetric, and equal only for the same event", () => {
    fc.assert(
      fc.property(historyArb, (events) => {
        for (const a of events) {
          for (const b of events) {
            const ab = comparePositions(positionOf(a), positionOf(b));
            expect(Math.sign(ab) + Math.sign(comparePositions(positionOf(b), positionOf(a)))).toBe(0);
            expect(ab === 0).toBe(a === b);
          }
        }
      }),
    );
  });
});
