import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { collectorRoutes } from "./collector-routes.ts";
import { summaryLine } from "./summary-line.ts";

function routes(state: { connected: boolean; answers: boolean; since: number | null; now: number }) {
  return collectorRoutes({
    connected: () => state.connected,
    outboxAnswers: () => state.answers,
    outboxUnusableSince: () => state.since,
    unhealthyThresholdMs: 60_000,
    registry: new Registry(),
    metricsEnabled: true,
    now: () => state.now,
  });
}

async function get(app: ReturnType<typeof routes>, path: string) {
  const response = await app.handle(new Request(`http://localhost${path}`));
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") };
}

describe("probes", () => {
  test("/readyz wants a broker session and an outbox that answers", async () => {
    const state = { connected: true, answers: true, since: null, now: 0 };
    const app = routes(state);
    expect(await get(app, "/readyz")).toEqual({ status: 200, text: "ok", type: "text/plain; charset=utf-8" });
    state.connected = false;
    expect(await get(app, "/readyz")).toMatchObject({ status: 503, text: "the collector is not ready" });
    state.connected = true;
    state.answers = false;
    expect((await get(app, "/readyz")).status).toBe(503);
  });

  test("/healthz weighs the outbox only, and fails once it has been unusable for the threshold", async () => {
    const state: { connected: boolean; answers: boolean; since: number | null; now: number } = {
      connected: false,
      answers: true,
      since: null,
      now: 100_000,
    };
    const app = routes(state);
    expect(await get(app, "/healthz")).toMatchObject({ status: 200, text: "ok" });
    state.answers = false;
    state.since = 50_000;
    expect(await get(app, "/healthz")).toMatchObject({ status: 200, text: "ok" });
    state.now = 110_000;
    expect(await get(app, "/healthz")).toMatchObject({
      status: 503,
      text: "the collector has been unhealthy for too long",
    });
  });
});

describe("the summary line", () => {
  const counts = { consumed: 3, skipped: 1, unparseable: 0, delivered: 2, delivery_errors: 0 };
  test("carries every member; the oldest age is 0 when empty and absent when unreadable", () => {
    expect(
      summaryLine({
        intervalSeconds: 60,
        connected: true,
        counts,
        buffered: 4,
        oldestBufferedAt: 1000,
        now: 62_500,
      }),
    ).toEqual({ interval_seconds: 60, connected: true, ...counts, buffered: 4, oldest_buffered_seconds: 61 });
    expect(
      summaryLine({
        intervalSeconds: 60,
        connected: false,
        counts,
        buffered: 0,
        oldestBufferedAt: null,
        now: 1,
      }).oldest_buffered_seconds,
    ).toBe(0);
    expect(
      "oldest_buffered_seconds" in
        summaryLine({
          intervalSeconds: 60,
          connected: true,
          counts,
          buffered: 0,
          oldestBufferedAt: undefined,
          now: 1,
        }),
    ).toBe(false);
  });
});
