import { describe, expect, test } from "bun:test";
import { generateMonth } from "../../lib/billing/simulator/generate-month.ts";
import { resourceKey } from "../../lib/billing/simulator/month.ts";
import { buildOracle } from "../../lib/billing/simulator/oracle.ts";
import { instantFromMs } from "../../lib/foundation/time/instant.ts";
import { parsePeriod } from "../../lib/foundation/time/period.ts";
import { finalizedOracle } from "./finalized-oracle.ts";

const period = parsePeriod("2026-10");
const month = generateMonth({ seed: 1, period, cloud: "cloud-1", scale: { tenants: 10 } });
const from = Date.parse(period.from);
const to = Date.parse(period.to);
const inMonth = (at: number) => at > from && at < to;

describe("the month as the finalized run reads it (decision 548)", () => {
  test("with nothing held it is the oracle's month", () => {
    expect(finalizedOracle(month, new Set()).resources).toEqual(
      buildOracle(month, [], new Map()).resources.map((r) => ({ ...r, faults: [] })),
    );
  });

  test("a held transition leaves the resource as it was until its next delivered one", () => {
    // A change of state inside the month, with a delivered transition after it: hold the change.
    const changes = month.resources.flatMap((r) => {
      const steps = r.steps.filter((s) => s.billable);
      return steps.flatMap((s, i) => {
        const was = steps[i - 1]?.truth?.state;
        const next = steps[i + 1];
        return inMonth(s.at) &&
          next !== undefined &&
          inMonth(next.at) &&
          was !== undefined &&
          s.truth !== null &&
          s.truth.state !== was
          ? [{ r, held: s, was, next }]
          : [];
      });
    });
    const change = changes[0];
    if (change === undefined) throw new Error("seed 1 has no change of state inside the month");
    const { r, held, was, next } = change;
    const stateAt = (resources: ReturnType<typeof buildOracle>["resources"], at: number) =>
      resources
        .find((x) => resourceKey(x) === resourceKey(r))
        ?.intervals.find((i) => i.from <= instantFromMs(at) && i.to > instantFromMs(at))?.state;
    const read = finalizedOracle(month, new Set([held.message_id])).resources;
    const truth = buildOracle(month, [], new Map()).resources;
    expect({ held: stateAt(read, held.at), justBeforeNext: stateAt(read, next.at - 1) }).toEqual({
      held: was,
      justBeforeNext: was,
    });
    expect(stateAt(truth, held.at)).toBe(held.truth?.state);
  });

  test("a held create: the resource begins at its first delivered event", () => {
    const resource = month.resources.find((r) => {
      const billable = r.steps.filter((s) => s.billable);
      return billable.length >= 2 && inMonth(billable[0]?.at ?? 0) && (billable[1]?.truth ?? null) !== null;
    });
    if (resource === undefined) throw new Error("seed 1 has no resource created inside the month");
    const [create, second] = resource.steps.filter((s) => s.billable) as [
      (typeof resource.steps)[number],
      (typeof resource.steps)[number],
    ];
    const read = finalizedOracle(month, new Set([create.message_id])).resources.find(
      (r) => resourceKey(r) === resourceKey(resource),
    );
    expect(read?.intervals[0]?.from).toBe(instantFromMs(second.at));
  });
});
