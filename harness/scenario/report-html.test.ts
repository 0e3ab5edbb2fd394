import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { parsePeriod } from "../../lib/foundation/time/period.ts";
import { daysOf, eventsPerDay, heldPerDay, liveResources, type ReportData } from "./report-data.ts";
import { renderReport } from "./report-html.ts";
import { axisScale } from "./svg-charts.ts";

const period = parsePeriod("2026-10");
const event = (timestamp: string, event_type: string, resource_type: string) =>
  JSON.stringify({ timestamp, event_type, resource_type });

describe("report data", () => {
  test("events per day by kind: instance audits apart, events before the month counted aside", () => {
    const set = eventsPerDay(
      [
        event("2026-09-30T10:00:00.000Z", "compute.instance.create.end", "instance"),
        event("2026-10-01T00:05:00.000Z", "compute.instance.exists", "instance"),
        event("2026-10-01T09:00:00.000Z", "volume.create.end", "volume"),
        event("2026-10-31T23:59:59.999Z", "volume.delete.end", "volume"),
      ],
      period,
    );
    expect(set.before).toBe(1);
    expect(set.labels.length).toBe(31);
    expect(set.series.map((s) => [s.name, s.values[0], s.values[30]])).toEqual([
      ["instance audit", 1, 0],
      ["volume", 1, 1],
    ]);
    expect(heldPerDay([event("2026-10-02T00:00:00.000Z", "x", "volume")], period).series[0]?.values[1]).toBe(
      1,
    );
  });

  test("live resources every six hours, half-open intervals", () => {
    const oracle = {
      resources: [
        {
          resource_type: "volume",
          resource_id: "v",
          workload: "steady",
          faults: [],
          intervals: [
            {
              from: "2026-10-01T00:00:00.000Z",
              to: "2026-10-01T12:00:00.000Z",
              state: "available",
              project_id: "p",
              size: {},
            },
          ],
        },
      ],
    } as unknown as Oracle;
    const set = liveResources(oracle, period);
    expect(set.labels.slice(0, 3)).toEqual(["2026-10-01 00:00", "2026-10-01 06:00", "2026-10-01 12:00"]);
    expect(set.series).toEqual([{ name: "volume", values: [1, 1, ...Array(122).fill(0)] }]);
    expect(daysOf(period)[30]).toBe("2026-10-31");
  });

  test("an axis is round and runs to just above its peak", () => {
    expect([0, 1, 7, 10, 11, 105, 180, 2001].map((peak) => axisScale(peak))).toEqual([
      { top: 1, step: 1 },
      { top: 1, step: 0.2 },
      { top: 8, step: 2 },
      { top: 10, step: 2 },
      { top: 12, step: 2 },
      { top: 120, step: 20 },
      { top: 200, step: 50 },
      { top: 2500, step: 500 },
    ]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (peak) => {
        const { top, step } = axisScale(peak);
        // At or above the peak, at most six round steps, and the last step the one that reaches it.
        expect(top).toBeGreaterThanOrEqual(peak);
        expect(top / step).toBeLessThanOrEqual(6);
        expect(top - step).toBeLessThan(peak);
        expect([1, 2, 5]).toContain(step / 10 ** Math.floor(Math.log10(step) + 1e-9));
      }),
    );
  });
});

describe("renderReport", () => {
  const data: ReportData = {
    scenario: "held-back",
    summary: "late <events>",
    seed: 7,
    period: "2026-10",
    tenants: 10,
    faults: ["held-back"],
    passed: false,
    totalMs: 12_345,
    stages: [{ stage: "meter", ms: 800, line: "" }],
    checks: [{ status: "fail", text: "the bill equals the oracle", details: ["instance/<i>: p/vcpus"] }],
    eventsPerDay: { labels: daysOf(period), series: [{ name: "volume", values: [105, 3] }], before: 3 },
    liveResources: { labels: ["2026-10-01 00:00"], series: [{ name: "instance", values: [2] }] },
    projects: [
      { key: "cloud-1/p&q", name: "northwind", statement: "10.00", creditNote: "-1.50" },
      {
        key: "cloud-1/r",
        name: null,
        statement: "5.00",
        creditNote: null,
        base: "6.00",
        adjustments: [{ type: "discount", amount: "-1.00" }],
      },
    ],
    late: {
      heldPerDay: { labels: daysOf(period), series: [] },
      detected: [{ resource: "instance/i", events: 2 }],
    },
    comparisons: {
      finalized: {
        resources: 2,
        differences: [
          {
            resource: "instance/i",
            missingCreate: false,
            lines: [{ line: "p/vcpus", oracle: "1.00 (1.000000)", export: "-" }],
          },
        ],
      },
      corrected: { resources: 2, differences: [] },
    },
  };
  const html = renderReport(data);

  test("one self-contained page: no script, nothing fetched", () => {
    expect(html).toStartWith("<!doctype html>");
    expect(html).not.toContain("<script");
    expect(html).not.toMatch(/\b(src|href)=/);
  });

  test("every section, with the numbers a reader looks for", () => {
    for (const heading of [
      "Checks",
      "Where the time goes",
      "Events per day",
      "Live resources",
      "Billed per project",
      "Late events and the correction",
      "Against the oracle",
    ])
      expect(html).toContain(`<h2>${heading}</h2>`);
    expect(html).toContain('<span class="verdict fail">FAIL</span>');
    expect(html).toContain("3 more are dated before it");
    expect(html).toContain('<td class="n">8.50</td>');
    expect(html).toContain("base 6.00; discount -1.00");
    expect(html).toContain("<b>The corrected bill</b>: 2 resources compared, 0 differ");
  });

  test("projects with their registry names, an axis to just above the peak, dates below", () => {
    expect(html).toContain("<td>cloud-1/p&amp;q</td><td>northwind</td>");
    expect(html).toContain('<td>cloud-1/r</td><td><span class="muted">unregistered</span></td>');
    expect(html).toContain("northwind (cloud-1/p&amp;q…)");
    // Events per day peak at 105: the axis reads up to 120, not 200.
    expect(html).toContain('text-anchor="end">120</text>');
    expect(html).not.toContain('text-anchor="end">200</text>');
    expect(html).toContain('text-anchor="middle">2026-10-01</text>');
    expect(html).not.toMatch(/text-anchor="middle">2026-10-01 00/);
  });

  test("text from the month is escaped", () => {
    expect(html).toContain("late &lt;events&gt;");
    expect(html).toContain("cloud-1/p&amp;q");
    expect(html).toContain("instance/&lt;i&gt;");
    expect(html).not.toContain("<events>");
  });
});
