import { existsSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { listensOn } from "../process/process-table.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { runCommand } from "../process/run-command.ts";
import { makeTempDir } from "../process/temp-dir.ts";
import { ovnEnv } from "./ovn-env.ts";

/** One member of a clustered database: its server (stop and start it for a fault) and its client remote. */
export interface RaftMember {
  readonly daemon: RestartableDaemon;
  /** `tcp:127.0.0.1:<port>` */
  readonly remote: string;
}

export interface RaftCluster {
  readonly members: readonly RaftMember[];
  /** Every member's remote, comma-separated, as `--ovnnb-db` takes a cluster. */
  readonly remotes: string;
  stop(): Promise<void>;
}

/**
 * A private clustered database of `size` members (`ovsdb-tool create-cluster`, then `join-cluster`
 * for the others), each an `ovsdb-server` on its own raft and client ports. The sandbox's NB and SB
 * are standalone; raft health and its alerts need a real cluster to lose its leader.
 */
export async function startRaftCluster(options: {
  schema: string;
  database: string;
  size?: number;
}): Promise<RaftCluster> {
  const size = options.size ?? 3;
  // The raft ports are written into the database files, so a port taken under us (the daemon reports
  // PortInUseError) starts the whole cluster afresh.
  return retryOnPortInUse(async () => {
    const dir = makeTempDir("raft");
    const env = ovnEnv(dir.path);
    const members: RaftMember[] = [];
    const stop = async () => {
      await Promise.all(members.map((m) => m.daemon.stop()));
      dir.remove();
    };
    try {
      const raftPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
      const raft = (i: number) => `tcp:127.0.0.1:${raftPorts[i]}`;
      for (let i = 0; i < size; i++) {
        const db = join(dir.path, `member${i}.db`);
        await runCommand(
          "ovsdb-tool",
          i === 0
            ? ["create-cluster", db, options.schema, raft(0)]
            : ["join-cluster", db, options.database, raft(i), raft(0)],
          { env },
        );
        const port = await freePort();
        const ctl = join(dir.path, `member${i}.ctl`);
        const log = join(dir.path, `member${i}.log`);
        const daemon = new RestartableDaemon(
          {
            name: `${options.database} raft member ${i}`,
            command: "ovsdb-server",
            args: [
              db,
              `--remote=ptcp:${port}:127.0.0.1`,
              `--unixctl=${ctl}`,
              `--log-file=${log}`,
              `--pidfile=${join(dir.path, `member${i}.pid`)}`,
              "-vconsole:off",
            ],
            logFile: join(dir.path, `member${i}.out`),
            extraLogs: [log],
            env,
            cwd: dir.path,
          },
          (server) => existsSync(ctl) && listensOn(server.members(), port),
        );
        await daemon.start();
        members.push({ daemon, remote: `tcp:127.0.0.1:${port}` });
      }
    } catch (error) {
      await stop();
      throw error;
    }
    return { members, remotes: members.map((m) => m.remote).join(","), stop };
  });
}
