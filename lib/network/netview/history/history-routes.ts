/**
 * `GET /api/v1/events` (recorded changes) and the `/api/v1/ws` stream (docs/netview.md, "Change
 * events"). Both take the same filter; the stream also takes `since` to resume or replay.
 */
import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import { ForbiddenError, UnavailableError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { ClusterSet } from "../cluster.ts";
import { jsonResponse } from "../table-json.ts";
import type { Subscriber } from "./change-hub.ts";
import { parseEventFilter, type QueryValues } from "./event-filter.ts";
import type { History } from "./history.ts";
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
            "Filters: cluster, database (nb, sb), table, op (insert, update, delete), uuid (lists comma-separated); since/before (exclusive seq bounds); from/to (RFC 3339, [from, to)); limit (1-1000, default 100). With since: the first `limit` events after it; otherwise the latest `limit`.",
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
      close(ws, code) {
        const subscriber = subscribers.get(ws.raw);
        if (subscriber !== undefined) history.hub.close(subscriber, code);
      },
      detail: {
        tags: ["history"],
        summary: "Real-time stream of database changes (WebSocket)",
        description:
          'Query: cluster, database, table, op, uuid (as /api/v1/events) and since (replay from the store, then live). Messages: {"type":"hello"}, {"type":"gap"} when events after since were pruned, {"type":"change", ...event}. A client that falls 4 MiB behind is sent nothing more and closed with 4008 once what it was sent has drained; it resumes with since.',
      },
    });
}
