/**
 * An HTTP intermediary in front of the Reporting API, as a deployment has one: it may cap request
 * bodies (413, like a proxy's body limit), answer a status of its own instead of forwarding (an API
 * behind it that is down: 502/503), answer 400 to a body holding a marker, or hold requests until
 * released; it counts the requests it holds at once.
 */
import type { Server } from "bun";

export interface ApiProxy {
  url: string;
  /** Bodies above this many bytes get 413 (undefined: no limit). */
  maxBodyBytes: number | undefined;
  /** While set, every request gets this status and nothing is forwarded. */
  failWith: number | undefined;
  /** A body holding this text gets 400 and is not forwarded. */
  poison: string | undefined;
  /** Every n-th request gets 503 and is not forwarded (undefined: none). */
  failEvery: number | undefined;
  /** Requests received, and their body sizes. */
  readonly requests: number[];
  /** Requests being answered now, and the most there were at once. */
  active: number;
  maxActive: number;
  /** Holds every request before it is answered, until `release`. */
  hold(): void;
  release(): void;
  stop(): void;
}

export function startApiProxy(upstream: string): ApiProxy {
  let server: Server<undefined> | undefined;
  let held: { promise: Promise<void>; resolve: () => void } | undefined;
  const proxy: ApiProxy = {
    url: "",
    maxBodyBytes: undefined,
    failWith: undefined,
    poison: undefined,
    failEvery: undefined,
    requests: [],
    active: 0,
    maxActive: 0,
    hold() {
      held ??= Promise.withResolvers<void>();
    },
    release() {
      held?.resolve();
      held = undefined;
    },
    stop: () => server?.stop(true),
  };
  async function answer(request: Request): Promise<Response> {
    const body = await request.text();
    const n = proxy.requests.push(Buffer.byteLength(body));
    await held?.promise;
    if (proxy.failWith !== undefined) return new Response("upstream unavailable", { status: proxy.failWith });
    if (proxy.failEvery !== undefined && n % proxy.failEvery === 0)
      return new Response("upstream unavailable", { status: 503 });
    if (proxy.maxBodyBytes !== undefined && Buffer.byteLength(body) > proxy.maxBodyBytes)
      return new Response("request entity too large", { status: 413 });
    if (proxy.poison !== undefined && body.includes(proxy.poison))
      return Response.json({ detail: "the request body cannot be parsed" }, { status: 400 });
    const target = new URL(request.url);
    const forwarded = await fetch(`${upstream}${target.pathname}${target.search}`, {
      method: request.method,
      headers: request.headers,
      ...(request.method === "GET" ? {} : { body }),
    });
    return new Response(await forwarded.arrayBuffer(), {
      status: forwarded.status,
      headers: forwarded.headers,
    });
  }
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      proxy.active++;
      proxy.maxActive = Math.max(proxy.maxActive, proxy.active);
      try {
        return await answer(request);
      } finally {
        proxy.active--;
      }
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}
