import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { listensOn } from "../process/process-table.ts";
import type { TempDir } from "../process/temp-dir.ts";

/** One server behind a listener: where it serves, and where its health is asked when elsewhere. */
export interface HaproxyServer {
  name: string;
  port: number;
  /** The port the check asks (Patroni's REST API beside PostgreSQL); the server's own when absent. */
  checkPort?: number;
}

/**
 * A listener in front of servers. `postgres`: TCP, a server is in only while its Patroni REST API
 * answers `GET /primary` with 200, and the sessions of a server marked down are cut at once.
 * `http`: HTTP, a server is in while `GET <check>` answers 200, and a request whose connection failed
 * or came back empty is sent to another (decision 35).
 */
export interface HaproxyListener {
  name: string;
  mode: "postgres" | "http";
  /** The path of the HTTP check (`http` only). */
  check?: string;
  servers: readonly HaproxyServer[];
}

export interface Haproxy {
  /** The port each listener binds, by name. */
  readonly ports: Readonly<Record<string, number>>;
  processes(): number[];
  stop(): Promise<void>;
}

function section(listener: HaproxyListener, port: number): string[] {
  const lines = [`listen ${listener.name}`, `  bind 127.0.0.1:${port}`];
  if (listener.mode === "postgres") {
    lines.push(
      "  mode tcp",
      "  option httpchk",
      "  http-check send meth GET uri /primary",
      "  http-check expect status 200",
      // One second between checks, down after two failures, up after one success: a failover is
      // followed within about two seconds, and a demoted primary loses its sessions at once.
      "  default-server inter 1s fastinter 500ms fall 2 rise 1 on-marked-down shutdown-sessions",
    );
  } else {
    lines.push(
      "  mode http",
      "  option httpchk",
      `  http-check send meth GET uri ${listener.check ?? "/healthz"}`,
      "  http-check expect status 200",
      "  option redispatch",
      "  retries 2",
      "  retry-on conn-failure empty-response",
      "  default-server inter 1s fastinter 500ms fall 2 rise 2",
    );
  }
  for (const server of listener.servers) {
    const check = server.checkPort === undefined ? "check" : `check port ${server.checkPort}`;
    lines.push(`  server ${server.name} 127.0.0.1:${server.port} ${check}`);
  }
  return lines;
}

/**
 * Starts HAProxy (Debian's 2.6) in the foreground (`-db`, so the daemon's pid is its own) with one
 * `listen` section per listener on a free port; ready once it listens on all of them.
 */
export async function startHaproxy(dir: TempDir, listeners: readonly HaproxyListener[]): Promise<Haproxy> {
  const home = dir.sub(`haproxy-${listeners.map((l) => l.name).join("-")}`);
  return retryOnPortInUse(async () => {
    const ports: Record<string, number> = {};
    for (const listener of listeners) ports[listener.name] = await freePort();
    const release = () => {
      for (const port of Object.values(ports)) releasePort(port);
    };
    const config = join(home, "haproxy.cfg");
    writeFileSync(
      config,
      [
        "global",
        "  maxconn 2000",
        "defaults",
        "  timeout connect 2s",
        // Long enough for a PostgreSQL session idle in a pool and for the engine's longest statement,
        // and above the collector's 60 s request deadline.
        "  timeout client 30m",
        "  timeout server 30m",
        "  timeout check 2s",
        ...listeners.flatMap((listener) => section(listener, ports[listener.name] as number)),
        "",
      ].join("\n"),
    );
    const daemon = new Daemon({
      name: "haproxy",
      command: "haproxy",
      args: ["-db", "-f", config],
      logFile: join(home, "haproxy.log"),
      cwd: home,
    });
    try {
      await daemon.waitReady(
        () => Object.values(ports).every((port) => listensOn(daemon.members(), port)),
        30_000,
      );
    } catch (error) {
      release();
      throw error;
    }
    return {
      ports,
      processes: () => daemon.members(),
      async stop() {
        await daemon.stop(2000);
        release();
      },
    };
  });
}
