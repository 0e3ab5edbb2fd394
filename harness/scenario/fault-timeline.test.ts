import { expect, test } from "bun:test";
import { parsePeriod } from "../../lib/foundation/time/period.ts";
import { faultTimeline } from "./fault-timeline.ts";

test("each fault is marked on the month's line where it struck, numbered, and listed with its times", () => {
  const html = faultTimeline(parsePeriod("2026-10"), [
    {
      at: "2026-10-01T00:00:00.000Z",
      target: "the PostgreSQL primary pg1",
      recoveredMs: 10_100,
      restartedMs: 21_600,
      detail: "pg2 primary",
    },
    {
      at: "2026-10-16T12:00:00.000Z",
      target: "collector <1>",
      recoveredMs: 3_000,
      restartedMs: 3_500,
      detail: "the other consumed on",
    },
  ]);
  // The month's line runs from x=48 to x=724: its first instant at the left end, its middle halfway.
  expect(html).toContain('<line x1="48" x2="48" y1="14" y2="64"');
  expect(html).toContain('<line x1="386" x2="386" y1="14" y2="64"');
  expect(html.match(/<circle /g)?.length).toBe(2);
  expect(html).toContain(
    '<tr><td class="n">2</td><td style="white-space:nowrap">2026-10-16 12:00</td><td>collector &lt;1&gt;</td><td class="n" style="white-space:nowrap">3.0 s</td><td class="n" style="white-space:nowrap">3.5 s</td><td>the other consumed on</td></tr>',
  );
});
