import { existsSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { listensOn } from "../process/process-table.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { runCommand } from "../process/run-command.ts";
import { ovsDaemonSpec } from "./ovs-daemon.ts";

/** An `ovsdb-server` serving one standalone database on a unix socket and on 127.0.0.1:port. */
export interface OvsdbServer {
  readonly daemon: RestartableDaemon;
  /** `tcp:127.0.0.1:<port>` */
  readonly tcpRemote: string;
  /** `unix:<path>` */
  readonly unixRemote: string;
  readonly socketPath: string;
  readonly port: number;
}

/**
 * Creates `<dir>/<name>.db` from `schema` and serves it. The port is confirmed as ours through /proc,
 * since ovsdb-server keeps running (and retrying) when its ptcp port is taken.
 */
export async function startOvsdbServer(options: {
  dir: string;
  name: string;
  schema: string;
  env: Record<string, string>;
  label: string;
}): Promise<OvsdbServer> {
  const { dir, name } = options;
  const db = join(dir, `${name}.db`);
  const socketPath = join(dir, `${name}.sock`);
  await runCommand("ovsdb-tool", ["create", db, options.schema]);
  return retryOnPortInUse(async () => {
    const port = await freePort();
    const daemon = new RestartableDaemon(
      ovsDaemonSpec({
        name: options.label,
        command: "ovsdb-server",
        dir,
        file: `${name}-ovsdb-server`,
        args: [db, `--remote=punix:${socketPath}`, `--remote=ptcp:${port}:127.0.0.1`],
        env: options.env,
      }),
      (server) => existsSync(socketPath) && listensOn(server.members(), port),
    );
    await daemon.start();
    return { daemon, port, socketPath, tcpRemote: `tcp:127.0.0.1:${port}`, unixRemote: `unix:${socketPath}` };
  });
}
