/** What the proxy does with one request. */
export type ProxyFault =
  /** Answer this status with keystonemiddleware's refusal body, without asking the platform. */
  | { status: number }
  /** Forward after this many milliseconds. */
  | { delayMs: number }
  /** Forward once this settles: the test holds the platform's answer while it does something else. */
  | { waitFor: Promise<unknown> }
  /** Stop listening and cut every open connection, this one included: the platform is down. */
  | "down";

/**
 * An HTTP forwarder in front of a fake platform API that injects real faults a test picks request by
 * request (a refusal, a slow answer, the service going away mid-run), as `TcpGate` does for a database.
 * It forwards with its own address as `Host`, so the catalog the platform builds points back at it.
 */
export class PlatformFaultProxy {
  /** Every request seen, in order: `GET /compute/v2.1/servers/detail?...`. */
  readonly seen: string[] = [];
  /** The proxy's address, also once it is down. */
  readonly url: string;
  #server: ReturnType<typeof Bun.serve> | null;

  private constructor(
    target: string,
    rule: (request: { method: string; path: string; index: number }) => ProxyFault | null,
  ) {
    this.#server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const url = new URL(request.url);
        const path = `${url.pathname}${url.search}`;
        const index = this.seen.push(`${request.method} ${path}`) - 1;
        const fault = rule({ method: request.method, path, index });
        if (fault === "down") {
          void this.stop();
          return new Promise<Response>(() => {});
        }
        if (fault !== null && "status" in fault) {
          return Response.json({ error: { code: fault.status, title: "Refused by the test" } }, fault);
        }
        if (fault !== null && "delayMs" in fault) await Bun.sleep(fault.delayMs);
        if (fault !== null && "waitFor" in fault) await fault.waitFor;
        const headers = new Headers(request.headers);
        headers.set("host", url.host);
        const body = request.method === "GET" ? null : await request.arrayBuffer();
        const answer = await fetch(`${target}${path}`, { method: request.method, headers, body });
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
      },
    });
    this.url = `http://127.0.0.1:${this.#server.port}`;
  }

  static start(
    target: string,
    rule: (request: { method: string; path: string; index: number }) => ProxyFault | null,
  ): PlatformFaultProxy {
    return new PlatformFaultProxy(target, rule);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    await server?.stop(true);
  }
}
