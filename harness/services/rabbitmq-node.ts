import { chownSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AMQPClient } from "@cloudamqp/amqp-client";
import type { DaemonSpec } from "../process/daemon.ts";
import { listensOn } from "../process/process-table.ts";
import type { SystemUser, TempDir } from "../process/temp-dir.ts";

/** The three ports of a private node, all on 127.0.0.1. */
export interface NodePorts {
  amqp: number;
  dist: number;
  management: number;
}

/** One private node's files and how to start it (decision 25): alone, or as a member of a cluster. */
export interface NodeLayout {
  nodeName: string;
  spec: DaemonSpec;
  /** `amqp://guest:guest@127.0.0.1:<amqp port>` */
  url: string;
}

/**
 * Writes the node's env file, config and plugin list into `config` (it reads no machine-wide file).
 * The disk alarm limit is lowered so that a nearly full test disk does not silently block publishers.
 * `peers`: node names a blank node joins at its first boot (classic config peer discovery); a node
 * that already belongs to a cluster rejoins it from its own data and ignores them.
 */
function writeConfig(config: string, ports: NodePorts, peers: readonly string[]): void {
  writeFileSync(join(config, "rabbitmq-env.conf"), "");
  writeFileSync(join(config, "enabled_plugins"), "[rabbitmq_management].\n");
  const discovery =
    peers.length === 0
      ? []
      : [
          "cluster_formation.peer_discovery_backend = classic_config",
          ...peers.map((peer, i) => `cluster_formation.classic_config.nodes.${i + 1} = ${peer}`),
        ];
  writeFileSync(
    join(config, "rabbitmq.conf"),
    [
      `listeners.tcp.1 = 127.0.0.1:${ports.amqp}`,
      `management.tcp.port = ${ports.management}`,
      "management.tcp.ip = 127.0.0.1",
      "disk_free_limit.absolute = 1MB",
      "log.console = false",
      "log.file.level = info",
      ...discovery,
      "",
    ].join("\n"),
  );
}

/**
 * Lays out a node in `dir` (config, home, mnesia and log dirs owned by rabbitmq) and returns how to
 * start it. Nodes of one cluster share `cookie`, written as the Erlang cookie of each node's home;
 * without it the node makes its own.
 */
export function layNode(options: {
  dir: TempDir;
  user: SystemUser;
  nodeName: string;
  ports: NodePorts;
  cookie?: string;
  peers?: readonly string[];
}): NodeLayout {
  const { dir, user, nodeName, ports } = options;
  const config = dir.sub("config", { owner: user, mode: 0o755 });
  const home = dir.sub("home", { owner: user });
  const mnesia = dir.sub("mnesia", { owner: user });
  const logs = dir.sub("log", { owner: user });
  writeConfig(config, ports, options.peers ?? []);
  if (options.cookie !== undefined) {
    const cookie = join(home, ".erlang.cookie");
    writeFileSync(cookie, options.cookie, { mode: 0o400 });
    chownSync(cookie, user.uid, user.gid);
  }
  return {
    nodeName,
    url: `amqp://guest:guest@127.0.0.1:${ports.amqp}`,
    spec: {
      name: `rabbitmq ${nodeName}`,
      // Not the Debian wrapper (/usr/sbin/rabbitmq-server): it switches user through `su` and logs to
      // /var/log/rabbitmq. The script it calls, run as rabbitmq, execs the Erlang VM when it believes
      // systemd supervises it, so the daemon's pid is beam.smp's and SIGTERM stops the node cleanly.
      command: "/usr/lib/rabbitmq/bin/rabbitmq-server",
      args: [],
      logFile: join(dir.path, "rabbitmq.out"),
      extraLogs: [join(logs, `${nodeName}.log`)],
      user,
      cwd: home,
      env: {
        HOME: home,
        USER: user.name,
        LOGNAME: user.name,
        RUNNING_UNDER_SYSTEMD: "true",
        RABBITMQ_NODENAME: nodeName,
        RABBITMQ_NODE_IP_ADDRESS: "127.0.0.1",
        RABBITMQ_NODE_PORT: String(ports.amqp),
        RABBITMQ_DIST_PORT: String(ports.dist),
        RABBITMQ_CONF_ENV_FILE: join(config, "rabbitmq-env.conf"),
        RABBITMQ_CONFIG_FILE: join(config, "rabbitmq.conf"),
        RABBITMQ_ADVANCED_CONFIG_FILE: join(config, "advanced.config"),
        RABBITMQ_ENABLED_PLUGINS_FILE: join(config, "enabled_plugins"),
        RABBITMQ_MNESIA_BASE: mnesia,
        RABBITMQ_LOG_BASE: logs,
        RABBITMQ_PID_FILE: join(mnesia, "pid"),
        RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: "-kernel inet_dist_use_interface {127,0,0,1}",
      },
    },
  };
}

async function amqpHandshake(url: string): Promise<boolean> {
  const client = new AMQPClient(url);
  await client.connect();
  await client.close();
  return true;
}

/** Ready: its VM listens on the AMQP and management ports and an AMQP handshake succeeds. */
export async function nodeReady(members: readonly number[], ports: NodePorts, url: string): Promise<boolean> {
  return listensOn(members, ports.amqp) && listensOn(members, ports.management) && (await amqpHandshake(url));
}

/** Two minutes: the Erlang VM's boot took over one on this 2-core machine under load 23. */
export const nodeStartTimeoutMs = 120_000;
