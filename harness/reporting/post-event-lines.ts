/** What the ingest API answered over a series of posts. */
export interface IngestTotals {
  posted: number;
  batches: number;
  accepted: number;
  duplicates: number;
  rejected: number;
}

/**
 * Posts event lines (canonical events as JSON, `events.jsonl`) to `POST /api/v1/events` in batches of
 * at most 1000, in order, and totals what ingest accepted, deduplicated and refused. `send` carries one
 * request body: the engine's acceptance tests hand it to the app in process, the scenario runner to the
 * Reporting API over HTTP. Any answer but 200 throws with its status and body.
 */
export async function postEventLines(
  send: (body: string) => Promise<Response>,
  lines: readonly string[],
): Promise<IngestTotals> {
  const totals: IngestTotals = { posted: 0, batches: 0, accepted: 0, duplicates: 0, rejected: 0 };
  for (let i = 0; i < lines.length; i += 1000) {
    const batch = lines.slice(i, i + 1000);
    const response = await send(`[${batch.join(",")}]`);
    if (response.status !== 200)
      throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
    const result = (await response.json()) as { accepted: number; duplicates: number; rejected: unknown[] };
    totals.posted += batch.length;
    totals.batches += 1;
    totals.accepted += result.accepted;
    totals.duplicates += result.duplicates;
    totals.rejected += result.rejected.length;
  }
  return totals;
}

/** A `send` for `postEventLines` that hands each body to an app in process (no listening server). */
export function sendToApp(app: { handle(request: Request): Response | Promise<Response> }) {
  return async (body: string): Promise<Response> =>
    app.handle(
      new Request("http://reporting/api/v1/events", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }),
    );
}
