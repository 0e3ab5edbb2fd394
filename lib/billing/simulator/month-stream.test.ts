import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { parsePeriod } from "../../foundation/time/period.ts";
import { interpretDelivery } from "../oslo/interpret-delivery.ts";
import { TransitionTwins } from "../oslo/transition-twins.ts";
import type { FaultSwitch } from "./fault-switch.ts";
import { generateMonth } from "./generate-month.ts";
import { type Month, resourceKey } from "./month.ts";
import { entryLines, monthStream } from "./month-stream.ts";

// Whole months are generated here; a busy shared machine can take seconds per test.
setDefaultTimeout(30_000);

const period = parsePeriod("2026-10");
const target = { platform: "platform_a", cloud: "c" };
const months = new Map<number, Month>();

function month(seed: number): Month {
  const cached = months.get(seed);
  if (cached) return cached;
  const m = generateMonth({ seed, period, cloud: "c", scale: { tenants: 4 } });
  months.set(seed, m);
  return m;
}

const seeds = Array.from({ length: 12 }, (_, i) => i + 1);
const billableSteps = (m: Month) =>
  m.resources.reduce((n, r) => n + r.steps.filter((s) => s.billable).length, 0);
const messageId = (body: string) => {
  const parsed = JSON.parse(JSON.parse(body)["oslo.message"]);
  return String(parsed.message_id);
};

function share(
  faults: FaultSwitch[],
  measure: (m: Month, s: ReturnType<typeof monthStream>) => [number, number],
) {
  let hits = 0;
  let total = 0;
  for (const seed of seeds) {
    const m = month(seed);
    const [h, t] = measure(m, monthStream(m, faults));
    hits += h;
    total += t;
  }
  return hits / total;
}

describe("fault shares over many seeds", () => {
  test("held-back: one in 20 billable transitions", () => {
    const s = share(["held-back"], (m, st) => [st.held.length, billableSteps(m)]);
    expect(s).toBeGreaterThan(0.04);
    expect(s).toBeLessThan(0.06);
  });

  test("duplicates: one in 20 billable transitions, byte for byte ten notifications later", () => {
    const s = share(["duplicates"], (m, st) => {
      const plain = monthStream(m, []).published.length;
      return [st.published.length - plain, billableSteps(m)];
    });
    expect(s).toBeGreaterThan(0.04);
    expect(s).toBeLessThan(0.06);
    const st = monthStream(month(1), ["duplicates"]);
    // A repeat stands at least eleven places behind its original (ten notifications in between), or
    // last in the month when fewer than ten followed it.
    const seen = new Map<string, number>();
    const tooClose: { first: number; repeat: number }[] = [];
    st.published.flatMap(entryLines).forEach((line, i) => {
      const first = seen.get(line.body);
      if (first === undefined) seen.set(line.body, i);
      else if (i - first < 11 && i !== st.published.length - 1) tooClose.push({ first, repeat: i });
    });
    expect(tooClose).toEqual([]);
  });

  test("reordering: one in 10 resources with two billable transitions, first behind second", () => {
    const s = share(["reordering"], (m, st) => {
      const marked = [...st.marks.values()].filter((f) => f.has("reordering")).length;
      const eligible = m.resources.filter((r) => r.steps.filter((x) => x.billable).length >= 2).length;
      return [marked, eligible];
    });
    expect(s).toBeGreaterThan(0.06);
    expect(s).toBeLessThan(0.14);
  });

  test("pre-existing and missing-create: one in three classic-tenant instances", () => {
    for (const fault of ["pre-existing", "missing-create"] as const) {
      const s = share([fault], (m, st) => {
        const classic = new Set(m.tenants.filter((t) => t.kind === "classic").map((t) => t.project_id));
        const instances = m.resources.filter(
          (r) =>
            r.resource_type === "instance" &&
            classic.has(r.steps.find((x) => x.truth)?.truth?.project_id ?? ""),
        );
        return [instances.filter((r) => st.marks.get(resourceKey(r))?.has(fault)).length, instances.length];
      });
      expect(s).toBeGreaterThan(0.25);
      expect(s).toBeLessThan(0.42);
    }
  });

  test("refused-shapes: twins on 23 in 400 compute transitions, each counted as the spec says", () => {
    let twins = 0;
    let compute = 0;
    const kinds = { unparseable: 0, skipped: 0 };
    for (const seed of seeds) {
      const m = month(seed);
      const plain = new Set(monthStream(m, []).published.flatMap((e) => entryLines(e).map((l) => l.body)));
      // Read in bus order with one memory, as the collector reads them: a versioned twin follows the
      // transition it repeats, booked already (decision 284).
      const memory = new TransitionTwins();
      for (const line of monthStream(m, ["refused-shapes"]).published.flatMap(entryLines)) {
        const outcome = interpretDelivery(line.body, target, memory);
        if (plain.has(line.body)) continue;
        twins += 1;
        expect(outcome.outcome).not.toBe("consumed");
        if (outcome.outcome === "skipped") expect(outcome.event_type.startsWith("instance.")).toBe(true);
        if (outcome.outcome !== "consumed") kinds[outcome.outcome] += 1;
      }
      compute += m.resources
        .filter((r) => r.resource_type === "instance")
        .reduce((n, r) => n + r.steps.filter((s) => s.billable).length, 0);
    }
    expect(twins).toBeGreaterThan(0);
    expect(kinds.skipped).toBeGreaterThan(kinds.unparseable);
    // Versioned twins come only from compute: 20 in 400, about one in 20 compute transitions.
    expect(kinds.skipped / compute).toBeGreaterThan(0.03);
    expect(kinds.skipped / compute).toBeLessThan(0.07);
  });
});

test("missing-create drops exactly the pre-month transitions of the marked resources", () => {
  const m = month(2);
  const from = Date.parse(period.from);
  const plain = monthStream(m, []);
  const missing = monthStream(m, ["missing-create"]);
  const early = m.resources
    .filter((r) => r.pre_existing)
    .reduce((n, r) => n + r.steps.filter((s) => s.at < from).length, 0);
  expect(early).toBeGreaterThan(0);
  expect(plain.published.length - missing.published.length).toBe(early);
});

test("reordering puts a resource's first billable transition directly behind its second", () => {
  const m = month(3);
  const plain = monthStream(m, []).published.flatMap((e) => entryLines(e).map((l) => messageId(l.body)));
  const st = monthStream(m, ["reordering"]);
  const reordered = st.published.flatMap((e) => entryLines(e).map((l) => messageId(l.body)));
  expect(new Set(reordered)).toEqual(new Set(plain));
  expect(reordered).not.toEqual(plain);
  for (const r of m.resources.filter((x) => st.marks.get(resourceKey(x))?.has("reordering"))) {
    const [first, second] = r.steps.filter((s) => s.billable).map((s) => s.message_id);
    expect(reordered.indexOf(first ?? "")).toBe(reordered.indexOf(second ?? "") + 1);
  }
});

test("every switch leaves the notifications of the month unchanged apart from what it does", () => {
  const m = month(4);
  const plain = monthStream(m, []).published.flatMap(entryLines);
  const all = monthStream(m, ["pre-existing", "duplicates", "reordering", "refused-shapes", "held-back"]);
  const bodies = new Set([...all.published, ...all.held].flatMap((e) => entryLines(e).map((l) => l.body)));
  for (const line of plain) expect(bodies.has(line.body)).toBe(true);
});
