import { encodeImportLines, type ImportSeries } from "../../lib/billing/traffic/traffic-import.ts";
import { waitFor } from "../process/wait-for.ts";

const chunk = 5_000;

/**
 * Loads series into a VictoriaMetrics through its JSON-lines import API and returns once every one of
 * them is searchable: VictoriaMetrics 1.79 makes a new series searchable about a second after its import
 * even after a flush (decision 30), so a reader started right away would see a partial month.
 * Series are matched back by their name and `cloud` label, so each test loads under a cloud of its own.
 */
export async function loadSeries(
  vmUrl: string,
  series: readonly ImportSeries[],
  options: { timeoutMs?: number } = {},
): Promise<void> {
  for (let i = 0; i < series.length; i += chunk) {
    const response = await fetch(`${vmUrl}/api/v1/import`, {
      method: "POST",
      body: encodeImportLines(series.slice(i, i + chunk)),
    });
    if (!response.ok) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  }
  await fetch(`${vmUrl}/internal/force_flush`);
  const expected = new Map<string, number>();
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const s of series) {
    for (const t of s.timestamps) {
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    const selector = `{__name__="${s.metric.__name__}",cloud="${s.metric.cloud}"}`;
    expected.set(selector, (expected.get(selector) ?? 0) + 1);
  }
  await waitFor(
    async () => {
      for (const [selector, count] of expected) {
        // A window around the samples: VictoriaMetrics 1.79 finds no series for `start=0`.
        const body = new URLSearchParams({
          "match[]": selector,
          start: String(Math.floor(first / 1000)),
          end: String(Math.ceil(last / 1000)),
        });
        const response = await fetch(`${vmUrl}/api/v1/series`, { method: "POST", body });
        if (!response.ok) return false;
        const found = ((await response.json()) as { data: unknown[] }).data.length;
        if (found < count) return false;
      }
      return true;
    },
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 200,
      onTimeout: () => new Error("the imported series did not become searchable"),
    },
  );
}
