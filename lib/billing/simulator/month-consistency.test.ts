import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { parsePeriod } from "../../foundation/time/period.ts";
import type { CanonicalEvent } from "../events/event.ts";
import { validateEvent } from "../events/validate.ts";
import { clipIntervals } from "../history/clip.ts";
import { foldHistory } from "../history/fold.ts";
import { type ExtraType, extraTypes } from "./extra-types.ts";
import type { FaultSwitch } from "./fault-switch.ts";
import { generateMonth } from "./generate-month.ts";
import { resourceKey } from "./month.ts";
import { entryLines, monthStream } from "./month-stream.ts";
import type { NovaFormat } from "./nova-format.ts";
import { buildOracle, type Oracle, type OracleInterval } from "./oracle.ts";
import { streamEvents } from "./stream-events.ts";

// Whole months are generated here; a busy shared machine can take seconds per test.
setDefaultTimeout(30_000);

const period = parsePeriod("2026-10");

function simulate(
  seed: number,
  faults: FaultSwitch[],
  tenants = 3,
  shape: { novaFormat?: NovaFormat; extraTypes?: ExtraType[] } = {},
) {
  const month = generateMonth({
    seed,
    period,
    cloud: "test-cloud",
    scale: { tenants },
    extraTypes: shape.extraTypes ?? [],
  });
  const stream = monthStream(month, faults, shape.novaFormat ?? "legacy");
  const oracle = buildOracle(month, faults, stream.marks);
  const events = [...streamEvents([...stream.published, ...stream.held].flatMap(entryLines), "test-cloud")];
  return { month, stream, oracle, events };
}

/** Per resource, the projection fold of its events clipped to the month, shaped like oracle intervals. */
function foldedIntervals(events: CanonicalEvent[]): Map<string, OracleInterval[]> {
  const byResource = new Map<string, CanonicalEvent[]>();
  for (const event of events) {
    const key = resourceKey(event);
    byResource.set(key, [...(byResource.get(key) ?? []), event]);
  }
  const out = new Map<string, OracleInterval[]>();
  for (const [key, history] of byResource) {
    const unique = [...new Map(history.map((e) => [e.event_id, e])).values()];
    const clipped = clipIntervals(foldHistory(unique).intervals, period.from, period.to);
    out.set(
      key,
      clipped.map((i) => ({
        from: i.from,
        to: i.to ?? period.to,
        state: i.state ?? "",
        project_id: i.project_id,
        size: i.size ?? {},
      })),
    );
  }
  return out;
}

function differing(oracle: Oracle, folded: Map<string, OracleInterval[]>): string[] {
  const keys = new Set([...oracle.resources.map(resourceKey), ...folded.keys()]);
  const expected = new Map(oracle.resources.map((r) => [resourceKey(r), r.intervals]));
  return [...keys].filter((k) => !Bun.deepEquals(expected.get(k) ?? [], folded.get(k) ?? [], true)).sort();
}

const faultSets: FaultSwitch[][] = [
  [],
  ["pre-existing"],
  ["duplicates"],
  ["reordering"],
  ["refused-shapes"],
  ["held-back"],
  ["pre-existing", "duplicates", "reordering", "refused-shapes", "held-back"],
];

describe("folding events.jsonl reproduces the oracle", () => {
  for (const faults of faultSets) {
    test(`faults: ${faults.join(",") || "none"}`, () => {
      for (const seed of [1, 2, 3]) {
        const { oracle, events } = simulate(seed, faults);
        expect(differing(oracle, foldedIntervals(events))).toEqual([]);
      }
    });
  }

  test("property: any seed, any switches but missing-create", () => {
    const switches = fc.subarray([
      "pre-existing",
      "duplicates",
      "reordering",
      "refused-shapes",
      "held-back",
    ] as FaultSwitch[]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), switches, (seed, faults) => {
        const { oracle, events } = simulate(seed, faults, 1);
        expect(differing(oracle, foldedIntervals(events))).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });

  for (const novaFormat of ["versioned", "both"] as const) {
    test(`nova sending ${novaFormat}, with snapshots and backups, under every switch but missing-create`, () => {
      for (const seed of [1, 2]) {
        for (const faults of [[], faultSets.at(-1) as FaultSwitch[]]) {
          const { oracle, events } = simulate(seed, faults, 3, { novaFormat, extraTypes: [...extraTypes] });
          expect(differing(oracle, foldedIntervals(events))).toEqual([]);
        }
      }
    });
  }

  test("missing-create differs exactly on the resources it marks", () => {
    for (const seed of [1, 2, 3]) {
      const { oracle, events } = simulate(seed, ["missing-create", "duplicates", "held-back"]);
      const marked = oracle.resources
        .filter((r) => r.faults.includes("missing-create"))
        .map(resourceKey)
        .sort();
      expect(marked.length).toBeGreaterThan(0);
      expect(differing(oracle, foldedIntervals(events))).toEqual(marked);
    }
  });
});

test("counts equal the events per project and type dated inside the month", () => {
  for (const faults of [[], ["duplicates", "held-back", "refused-shapes"]] as FaultSwitch[][]) {
    const { oracle, events } = simulate(4, faults);
    const unique = new Map(events.map((e) => [e.event_id, e]));
    const counts = new Map<string, number>();
    for (const e of unique.values()) {
      if (e.timestamp < period.from || e.timestamp >= period.to) continue;
      const key = `${e.project_id} ${e.event_type}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual(
      Object.fromEntries(oracle.counts.map((c) => [`${c.project_id} ${c.event_type}`, c.count])),
    );
  }
});

test("nova's format changes the bus, never the oracle or the events booked", () => {
  const legacy = simulate(7, ["duplicates", "held-back"]);
  for (const novaFormat of ["versioned", "both"] as const) {
    const other = simulate(7, ["duplicates", "held-back"], 3, { novaFormat });
    expect(other.oracle).toEqual(legacy.oracle);
    const booked = (e: (typeof legacy.events)[number]) => {
      const { event_id: _, payload, ...rest } = e;
      return { ...rest, state: payload.state, size: payload.size };
    };
    expect(other.events.map(booked)).toEqual(legacy.events.map(booked));
  }
  const both = simulate(7, [], 3, { novaFormat: "both" });
  const lines = [...both.stream.published].flatMap(entryLines);
  expect(lines.filter((l) => l.routing_key === "versioned_notifications.info").length).toBe(
    lines.filter((l) => l.exchange === "nova" && l.routing_key === "notifications.info").length,
  );
});

test("snapshots and backups are drawn apart: the month without them is the month with them, less them", () => {
  const plain = simulate(8, []);
  const copies = simulate(8, [], 3, { extraTypes: [...extraTypes] });
  const isCopy = (r: { resource_type: string }) =>
    r.resource_type === "volume_snapshot" || r.resource_type === "volume_backup";
  const types = new Set(copies.oracle.resources.filter(isCopy).map((r) => r.resource_type));
  expect([...types].sort()).toEqual(["volume_backup", "volume_snapshot"]);
  expect(copies.oracle.resources.filter((r) => !isCopy(r))).toEqual(plain.oracle.resources);
  expect(copies.events.filter((e) => !isCopy(e))).toEqual(plain.events);
});

test("the oracle is the same under every fault switch but for its marks", () => {
  const strip = (o: Oracle) => ({
    ...o,
    faults: [],
    resources: o.resources.map((r) => ({ ...r, faults: [] })),
  });
  const plain = strip(simulate(5, []).oracle);
  for (const faults of faultSets.slice(1)) expect(strip(simulate(5, faults).oracle)).toEqual(plain);
  expect(strip(simulate(5, ["missing-create"]).oracle)).toEqual(plain);
});

test("every event of the month passes ingest validation", () => {
  const { events } = simulate(6, ["refused-shapes", "duplicates", "held-back", "pre-existing"]);
  const refused = events
    .map((e, i) => validateEvent(JSON.parse(JSON.stringify(e)), `events.${i}`))
    .flatMap((v) => (v.ok ? [] : v.errors));
  expect(refused).toEqual([]);
});
