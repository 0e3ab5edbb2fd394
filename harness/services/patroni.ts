import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { trackGroup, untrackGroup } from "../process/cleanup-registry.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { groupOf, isAlive, listensOn, treeOf } from "../process/process-table.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { systemUser } from "../process/system-user.ts";
import { makeTempDir, type SystemUser, type TempDir } from "../process/temp-dir.ts";
import { waitFor } from "../process/wait-for.ts";
import { type Etcd, startEtcd } from "./etcd.ts";
import { type Haproxy, startHaproxy } from "./haproxy.ts";
import { type PostgresService, postgresBinDir, postgresServiceOn } from "./postgres.ts";

/** What Patroni's REST API says a node is. */
export type PatroniRole = "primary" | "replica" | "down";

/** One PostgreSQL node under Patroni: killed and started again by the fault tests and the scenario. */
export interface PatroniMember {
  readonly name: string;
  /** Its PostgreSQL port (direct, not through HAProxy). */
  readonly port: number;
  /** Its Patroni REST API, `http://127.0.0.1:<port>`. */
  readonly restUrl: string;
  readonly running: boolean;
  role(): Promise<PatroniRole>;
  /** Patroni and its PostgreSQL SIGKILLed together, as a machine that dies. */
  kill(): Promise<void>;
  /** Starts it again on its data dir: it rejoins as a replica (pg_rewind when it was the primary). */
  start(): Promise<void>;
  processes(): number[];
}

/** Patroni with its PostgreSQL nodes, etcd as its store, and HAProxy sending `url` to the primary. */
export interface PostgresCluster extends PostgresService {
  readonly members: readonly PatroniMember[];
  /** HAProxy's listener for the primary (the port of `url`). */
  readonly port: number;
  /** The member that says it is the primary now, if one does. */
  primary(): Promise<PatroniMember | undefined>;
  /**
   * Waits until a member is primary, every other running member streams from it (one of them as its
   * synchronous standby), and HAProxy sends `url` there; returns the primary.
   */
  settled(timeoutMs?: number): Promise<PatroniMember>;
}

/**
 * The cluster's settings (decision 33). A leader key lives `ttl` seconds unless renewed every
 * `loop_wait`, so a primary that dies is replaced after about ten seconds. `synchronous_mode` lets
 * Patroni promote only a replica that confirmed every commit, so no acknowledged event is lost in a
 * failover; not strict, so a primary whose replica is down keeps taking writes. fsync stays off (test
 * data, and the faults kill processes, not the machine); commits still wait for the standby.
 */
function dcsSettings(): Record<string, unknown> {
  return {
    ttl: 10,
    loop_wait: 2,
    retry_timeout: 4,
    maximum_lag_on_failover: 1_048_576,
    synchronous_mode: true,
    postgresql: {
      use_pg_rewind: true,
      use_slots: true,
      parameters: {
        fsync: "off",
        full_page_writes: "on",
        wal_log_hints: "on",
        max_connections: 200,
        wal_keep_size: "128MB",
      },
    },
  };
}

interface NodePorts {
  pg: number;
  rest: number;
}

function nodeConfig(options: {
  scope: string;
  name: string;
  dir: string;
  ports: NodePorts;
  etcd: Etcd;
}): Record<string, unknown> {
  const { dir, ports } = options;
  return {
    scope: options.scope,
    namespace: "/svc/",
    name: options.name,
    log: { level: "INFO" },
    restapi: { listen: `127.0.0.1:${ports.rest}`, connect_address: `127.0.0.1:${ports.rest}` },
    etcd3: { host: options.etcd.host },
    bootstrap: {
      dcs: dcsSettings(),
      initdb: [{ encoding: "UTF8" }, { locale: "C.UTF-8" }, "no-sync"],
      pg_hba: [
        "local all all trust",
        "host replication replicator 127.0.0.1/32 trust",
        "host all all 127.0.0.1/32 trust",
      ],
    },
    postgresql: {
      listen: `127.0.0.1:${ports.pg}`,
      connect_address: `127.0.0.1:${ports.pg}`,
      data_dir: join(dir, "data"),
      bin_dir: postgresBinDir(),
      pgpass: join(dir, "pgpass"),
      authentication: {
        superuser: { username: "postgres" },
        replication: { username: "replicator" },
      },
      parameters: { unix_socket_directories: dir },
    },
  };
}

async function restStatus(restUrl: string, path: string): Promise<number> {
  try {
    const response = await fetch(`${restUrl}${path}`, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

class Member implements PatroniMember {
  readonly restUrl: string;
  private readonly daemon: RestartableDaemon;
  // The postmaster Patroni started: a child of init in a session of its own, so neither Patroni's
  // group nor its descendants hold it. Its group is tracked for the reaper while it runs.
  private postmaster: { pid: number; group: number } | undefined;

  constructor(
    readonly name: string,
    private readonly dir: string,
    readonly ports: NodePorts,
    config: string,
    user: SystemUser,
  ) {
    this.restUrl = `http://127.0.0.1:${ports.rest}`;
    this.daemon = new RestartableDaemon(
      {
        name: `patroni ${name}`,
        command: "patroni",
        args: [config],
        logFile: join(dir, "patroni.log"),
        cwd: dir,
        user,
      },
      async (daemon) => {
        if (!listensOn(daemon.members(), ports.rest)) return false;
        if ((await restStatus(this.restUrl, "/health")) !== 200) return false;
        this.notePostmaster();
        return true;
      },
      // A replica's first start copies the primary (pg_basebackup): two minutes under heavy load.
      180_000,
    );
  }

  get port(): number {
    return this.ports.pg;
  }

  get running(): boolean {
    return this.daemon.running;
  }

  private notePostmaster(): void {
    try {
      const pid = Number(readFileSync(join(this.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
      const group = groupOf(pid);
      if (!Number.isInteger(pid) || group === undefined) return;
      if (this.postmaster?.pid === pid) return;
      this.postmaster = { pid, group };
      trackGroup(group, "SIGINT");
    } catch {
      // No postmaster yet.
    }
  }

  async role(): Promise<PatroniRole> {
    if (!this.running) return "down";
    if ((await restStatus(this.restUrl, "/primary")) === 200) return "primary";
    if ((await restStatus(this.restUrl, "/replica")) === 200) return "replica";
    return "down";
  }

  processes(): number[] {
    this.notePostmaster();
    return [...this.daemon.members(), ...(this.postmaster ? treeOf(this.postmaster.pid) : [])];
  }

  async kill(): Promise<void> {
    this.notePostmaster();
    const postmaster = this.postmaster;
    if (postmaster !== undefined) {
      try {
        process.kill(postmaster.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await this.daemon.kill();
    await this.forgetPostmaster(5000);
  }

  async start(): Promise<void> {
    await this.daemon.start();
  }

  /** Patroni stops its PostgreSQL on SIGTERM; a postmaster that outlives it is stopped here. */
  async stop(): Promise<void> {
    this.notePostmaster();
    await this.daemon.stop();
    const postmaster = this.postmaster;
    if (postmaster !== undefined && isAlive(postmaster.pid)) process.kill(postmaster.pid, "SIGINT");
    await this.forgetPostmaster(10_000);
  }

  private async forgetPostmaster(timeoutMs: number): Promise<void> {
    const postmaster = this.postmaster;
    if (postmaster === undefined) return;
    // Backends leave by themselves once their postmaster is gone.
    await waitFor(() => treeOf(postmaster.pid).length === 0, {
      timeoutMs,
      onTimeout: () => new Error(`the postmaster of ${this.name} did not stop`),
    }).catch(() => {
      for (const pid of treeOf(postmaster.pid)) process.kill(pid, "SIGKILL");
    });
    untrackGroup(postmaster.group);
    this.postmaster = undefined;
  }
}

async function startNodes(
  dir: TempDir,
  size: number,
): Promise<{ etcd: Etcd; members: Member[]; haproxy: Haproxy }> {
  const user = systemUser("postgres");
  const etcd = await startEtcd(dir);
  const members: Member[] = [];
  let haproxy: Haproxy | undefined;
  try {
    const scope = `svc_${Math.random().toString(16).slice(2, 10)}`;
    for (let i = 1; i <= size; i++) {
      const name = `pg${i}`;
      const home = dir.sub(name, { owner: user });
      const ports = { pg: await freePort(), rest: await freePort() };
      const config = join(dir.path, `${name}.yml`);
      // JSON is YAML: Patroni reads it as it is.
      writeFileSync(config, JSON.stringify(nodeConfig({ scope, name, dir: home, ports, etcd }), null, 2), {
        mode: 0o644,
      });
      members.push(new Member(name, home, ports, config, user));
    }
    haproxy = await startHaproxy(dir, [
      {
        name: "postgres",
        mode: "postgres",
        servers: members.map((m) => ({ name: m.name, port: m.ports.pg, checkPort: m.ports.rest })),
      },
    ]);
    // All at once: one wins the initialize key and bootstraps, the others copy it once it is up.
    await Promise.all(members.map((m) => m.start()));
    return { etcd, members, haproxy };
  } catch (error) {
    await Promise.allSettled(members.map((m) => m.stop()));
    for (const m of members) for (const port of Object.values(m.ports)) releasePort(port);
    await haproxy?.stop();
    await etcd.stop();
    throw error;
  }
}

/**
 * Starts a Patroni cluster of `size` PostgreSQL nodes (default 2) on etcd, with HAProxy in front
 * sending `url` to whichever node Patroni's REST API calls the primary (decisions 33, 34). Resolves
 * once the cluster has settled: a primary, its synchronous standby, HAProxy routing to it.
 */
export async function startPostgresCluster(options: { size?: number } = {}): Promise<PostgresCluster> {
  const size = options.size ?? 2;
  return retryOnPortInUse(async () => {
    const dir = makeTempDir("patroni");
    let started: Awaited<ReturnType<typeof startNodes>>;
    try {
      started = await startNodes(dir, size);
    } catch (error) {
      dir.remove();
      throw error;
    }
    const { etcd, members, haproxy } = started;
    const port = haproxy.ports.postgres as number;
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const primary = async () => {
      for (const member of members) if ((await member.role()) === "primary") return member;
      return undefined;
    };
    const settled = async (timeoutMs = 120_000): Promise<PatroniMember> => {
      let found: PatroniMember | undefined;
      await waitFor(
        async () => {
          found = await primary();
          if (found === undefined) return false;
          const others = members.filter((m) => m !== found && m.running);
          let synchronous = 0;
          for (const member of others) {
            if ((await restStatus(member.restUrl, "/replica")) !== 200) return false;
            if ((await restStatus(member.restUrl, "/sync")) === 200) synchronous++;
          }
          if (others.length > 0 && synchronous === 0) return false;
          return (await routedPrimary(url)) === found.port;
        },
        {
          timeoutMs,
          intervalMs: 250,
          onTimeout: () =>
            new Error(`the Patroni cluster did not settle within ${timeoutMs} ms (${dir.path})`),
        },
      );
      return found as PatroniMember;
    };
    const stop = async () => {
      await haproxy.stop();
      await Promise.allSettled(members.map((m) => m.stop()));
      for (const m of members) for (const p of Object.values(m.ports)) releasePort(p);
      await etcd.stop();
      dir.remove();
    };
    try {
      await settled(180_000);
    } catch (error) {
      await stop();
      throw error;
    }
    const service = postgresServiceOn(url, false, {
      dir: dir.path,
      processes: () => [
        ...etcd.processes(),
        ...haproxy.processes(),
        ...members.flatMap((m) => m.processes()),
      ],
      stop,
    });
    return { ...service, members, port, primary, settled };
  });
}

/** The PostgreSQL port HAProxy's `url` reaches now (`inet_server_port()`), undefined while none answers. */
async function routedPrimary(url: string): Promise<number | undefined> {
  const probe = postgres(url, { max: 1, connect_timeout: 2, idle_timeout: 1, onnotice: () => {} });
  try {
    const [row] = await probe<{ port: number; recovery: boolean }[]>`
      select inet_server_port() as port, pg_is_in_recovery() as recovery`;
    return row === undefined || row.recovery ? undefined : row.port;
  } catch {
    return undefined;
  } finally {
    await probe.end({ timeout: 1 });
  }
}
