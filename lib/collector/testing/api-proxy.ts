/**
 * An HTTP intermediary in front of the Reporting API, as a deployment has one: it may cap request
 * bodies (413, like a proxy's body limit), answer a status of its own instead of forwarding (an API
 * behind it that is down: 502/503), or answer 400 to a body holding a marker.
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
  /** Requests received, and their body sizes. */
  readonly requests: number[];
  stop(): void;
}

export function startApiProxy(upstream: string): ApiProxy {
  let server: Server<undefined> | undefined;
  const proxy: ApiProxy = {
    url: "",
    maxBodyBytes: undefined,
    failWith: undefined,
    poison: undefined,
    requests: [],
    stop: () => server?.stop(true),
  };
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      proxy.requests.push(Buffer.byteLength(body));
      if (proxy.failWith !== undefined)
        return new Response("upstream unavailable", { status: proxy.failWith });
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
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}
