import { join } from "node:path";
import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { listensOn } from "../process/process-table.ts";
import type { TempDir } from "../process/temp-dir.ts";

/** A private single-member etcd: Patroni's consensus store in the clustered stack (decision 33). */
export interface Etcd {
  /** `127.0.0.1:<port>`, as Patroni's `etcd3.host` takes it. */
  readonly host: string;
  processes(): number[];
  stop(): Promise<void>;
}

/**
 * Starts etcd in `dir/etcd` on two free ports (client and peer). One member is enough here: the
 * faults the harness plays are of PostgreSQL nodes, not of the store, and a member costs memory and a
 * start on a two-core machine. Ready once its client port answers `/health`.
 */
export async function startEtcd(dir: TempDir): Promise<Etcd> {
  const data = dir.sub("etcd");
  return retryOnPortInUse(async () => {
    const client = await freePort();
    const peer = await freePort();
    const release = () => {
      releasePort(client);
      releasePort(peer);
    };
    const daemon = new Daemon({
      name: "etcd",
      command: "etcd",
      args: [
        "--name=svc",
        `--data-dir=${join(data, "data")}`,
        `--listen-client-urls=http://127.0.0.1:${client}`,
        `--advertise-client-urls=http://127.0.0.1:${client}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=svc=http://127.0.0.1:${peer}`,
        "--log-level=warn",
      ],
      logFile: join(data, "etcd.log"),
      cwd: data,
    });
    try {
      await daemon.waitReady(async () => {
        if (!listensOn(daemon.members(), client)) return false;
        return (await fetch(`http://127.0.0.1:${client}/health`)).ok;
      }, 60_000);
    } catch (error) {
      release();
      throw error;
    }
    return {
      host: `127.0.0.1:${client}`,
      processes: () => daemon.members(),
      async stop() {
        await daemon.stop(2000);
        release();
      },
    };
  });
}
