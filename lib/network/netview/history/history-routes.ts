/**
 * `GET /api/v1/events` (recorded changes) and the `/api/v1/ws` stream (docs/netview.md, "Change
 * events"). Both take the same filter; the stream also takes `since` to resume or replay.
 */
import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import { ForbiddenError, UnavailableError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { ClusterSet } from "../cluster.ts";
import { errorResponses, responses } from "../openapi-shapes.ts";
import { openapiParameters } from "../query-params.ts";
import { jsonResponse } from "../table-json.ts";
import type { Subscriber } from "./change-hub.ts";
import { parseEventFilter, type QueryValues } from "./event-filter.ts";
import type { History } from "./history.ts";
import { eventParams, eventsSchema, streamParams } from "./history-shapes.ts";
import { originAllowed } from "./ws-origin.ts";

const streamParameters = ["cluster", "database", "table", "op", "uuid", "since"];

export function historyRoutes(history: History, clusters: ClusterSet, allowedOrigins: readonly string[]) {
  const names = clusters.all.map((c) => c.name);
  const subscribers = new WeakMap<object, Subscriber>();
  const streamFilter = (query: QueryValues) => {
    const filter = parseEventFilter(query, { clusters: names, parameters: streamParameters });
    const latest = history.store.last().seq;
    if (filter.since !== undefined && filter.since > latest) {
      throw new ValidationError(
        `invalid query: since: ${filter.since} is beyond the latest event (${latest})`,
      );
    }
    return filter;
  };
  return new Elysia({ name: "netview-history" })
    .get(
      "/api/v1/events",
      ({ query }) => {
        const filter = parseEventFilter(query as QueryValues, { clusters: names });
        const events = history.store.query(filter);
        const retained = JSON.stringify(history.store.bounds());
        return jsonResponse(`{"events":[${events.map((e) => e.json).join(",")}],"retained":${retained}}`);
      },
      {
        detail: {
          tags: ["history"],
          summary: "Recorded database changes, oldest first",
          description:
            "With since: the first `limit` events after it; otherwise the latest `limit`. `from` and `to` bound when netview saw them, [from, to).",
          parameters: openapiParameters(eventParams),
          responses: responses(eventsSchema, { 400: "invalid parameters, each named" }),
        },
      },
    )
    .ws("/api/v1/ws", {
      beforeHandle({ request, query }) {
        if (!originAllowed(request.headers.get("origin"), allowedOrigins)) {
          throw new ForbiddenError("origin not allowed");
        }
        streamFilter(query as QueryValues);
        if (history.hub.full) throw new UnavailableError("too many stream clients");
      },
      open(ws) {
        // Elysia's own declaration of the socket lacks Bun's getBufferedAmount.
        const raw = ws.raw as unknown as ServerWebSocket<unknown>;
        const subscriber = history.hub.open(
          {
            send: (text) => raw.send(text),
            bufferedAmount: () => raw.getBufferedAmount(),
            close: (code, reason) => raw.close(code, reason),
          },
          streamFilter(ws.data.query as QueryValues),
        );
        subscribers.set(raw, subscriber);
      },
      drain(ws) {
        const subscriber = subscribers.get(ws.raw);
        if (subscriber !== undefined) history.hub.drain(subscriber);
      },
      close(ws) {
        const subscriber = subscribers.get(ws.raw);
        if (subscriber !== undefined) history.hub.close(subscriber);
      },
      detail: {
        tags: ["history"],
        summary: "Real-time stream of database changes (WebSocket)",
        description:
          'Messages are JSON texts: `{"type": "hello", "latest_seq", "oldest_seq", "since"}` first; `{"type": "gap", "after", "resume"}` when events after since were pruned; `{"type": "change", ...event}` (as in /api/v1/events) for each change passing the filter, in seq order. A client that falls 4 MiB behind is sent nothing more and closed with 4008 once what it was sent has drained; it resumes with since.',
        parameters: openapiParameters(streamParams),
        responses: errorResponses({
          400: "invalid parameters, each named",
          403: "the Origin is not in --ws-allowed-origins",
          404: "not a WebSocket upgrade (no Upgrade: websocket)",
          503: "too many stream clients",
        }),
      },
    });
}
