import type { Socket, TCPSocketListener } from "bun";

/**
 * A TCP forwarder on a fixed local port that can be opened and shut, to stand a database's address up
 * and down under a running process (a real network fault: connections are refused while shut).
 */
export class TcpGate {
  #listener: TCPSocketListener<{
    upstream: Socket<{ client: Socket<unknown> }> | null;
    pending: Uint8Array[];
  }> | null = null;

  constructor(
    readonly port: number,
    private readonly target: { hostname: string; port: number },
  ) {}

  open(): void {
    if (this.#listener) return;
    const target = this.target;
    this.#listener = Bun.listen({
      hostname: "127.0.0.1",
      port: this.port,
      socket: {
        open(client) {
          client.data = { upstream: null, pending: [] };
          Bun.connect<{ client: Socket<unknown> }>({
            hostname: target.hostname,
            port: target.port,
            data: { client },
            socket: {
              open(upstream) {
                client.data.upstream = upstream;
                for (const chunk of client.data.pending) upstream.write(chunk);
                client.data.pending = [];
              },
              data(upstream, chunk) {
                upstream.data.client.write(chunk);
              },
              close(upstream) {
                upstream.data.client.end();
              },
              error(upstream) {
                upstream.data.client.end();
              },
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          if (client.data.upstream) client.data.upstream.write(chunk);
          else client.data.pending.push(new Uint8Array(chunk));
        },
        close(client) {
          client.data.upstream?.end();
        },
      },
    });
  }

  shut(): void {
    this.#listener?.stop(true);
    this.#listener = null;
  }
}
