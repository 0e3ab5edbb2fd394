import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { listensOn } from "../process/process-table.ts";
import { systemUser } from "../process/system-user.ts";
import { makeTempDir } from "../process/temp-dir.ts";
import { uniqueName } from "./unique-name.ts";

/** A RabbitMQ broker for tests: a private node (started here) or external (`SVC_TEST_AMQP_URL`). */
export interface RabbitmqService {
  /** `amqp://guest:guest@127.0.0.1:<port>` (the default vhost `/`). */
  readonly url: string;
  /** The management HTTP API (`http://127.0.0.1:<port>`) of a private node. */
  readonly managementUrl: string | undefined;
  /** Erlang node name of a private node (`svc_<hex>@localhost`). */
  readonly nodeName: string | undefined;
  readonly external: boolean;
  readonly dir: string | undefined;
  /** Creates a fresh vhost with all rights for the URL's user and returns its URL; deleted at `stop()`. */
  createVhost(name?: string): Promise<string>;
  /**
   * Stops a private node in order, keeps it down `downMs`, and starts it again with the same name,
   * ports and data (durable queues and persistent messages survive), for fault tests.
   */
  restart(downMs?: number): Promise<void>;
  processes(): number[];
  stop(): Promise<void>;
}

/** Management API base and credentials derived from an AMQP URL. */
interface Management {
  base: string;
  user: string;
  password: string;
}

function vhostUrl(serverUrl: string, vhost: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(vhost)}`;
  return url.toString();
}

async function managementCall(api: Management, method: "PUT" | "DELETE", path: string, body?: unknown) {
  const response = await fetch(`${api.base}/api${path}`, {
    method,
    headers: {
      authorization: `Basic ${btoa(`${api.user}:${api.password}`)}`,
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok && !(method === "DELETE" && response.status === 404)) {
    throw new Error(`RabbitMQ management ${method} ${path}: ${response.status} ${await response.text()}`);
  }
}

function serviceOn(options: {
  url: string;
  management: Management;
  external: boolean;
  nodeName: string | undefined;
  dir: string | undefined;
  processes: () => number[];
  stopServer: () => Promise<void>;
  restartServer: (downMs: number) => Promise<void>;
}): RabbitmqService {
  const { url, management } = options;
  const created: string[] = [];
  return {
    url,
    managementUrl: options.external ? undefined : management.base,
    nodeName: options.nodeName,
    external: options.external,
    dir: options.dir,
    processes: options.processes,
    restart: (downMs = 0) => options.restartServer(downMs),
    async createVhost(name) {
      const vhost = name ?? uniqueName("svc_test");
      const path = encodeURIComponent(vhost);
      await managementCall(management, "PUT", `/vhosts/${path}`, {});
      created.push(vhost);
      await managementCall(management, "PUT", `/permissions/${path}/${encodeURIComponent(management.user)}`, {
        configure: ".*",
        write: ".*",
        read: ".*",
      });
      return vhostUrl(url, vhost);
    },
    async stop() {
      if (options.external) {
        for (const vhost of created.splice(0)) {
          await managementCall(management, "DELETE", `/vhosts/${encodeURIComponent(vhost)}`);
        }
      }
      await options.stopServer();
    },
  };
}

async function amqpHandshake(url: string): Promise<boolean> {
  const client = new AMQPClient(url);
  await client.connect();
  await client.close();
  return true;
}

// The node reads no machine-wide file: its own env file, config and plugin list. The disk alarm
// limit is lowered so that a nearly full test disk does not silently block publishers.
function writeConfig(dir: string, ports: { amqp: number; management: number }): void {
  writeFileSync(join(dir, "rabbitmq-env.conf"), "");
  writeFileSync(join(dir, "enabled_plugins"), "[rabbitmq_management].\n");
  writeFileSync(
    join(dir, "rabbitmq.conf"),
    [
      `listeners.tcp.1 = 127.0.0.1:${ports.amqp}`,
      `management.tcp.port = ${ports.management}`,
      "management.tcp.ip = 127.0.0.1",
      "disk_free_limit.absolute = 1MB",
      "log.console = false",
      "log.file.level = info",
      "",
    ].join("\n"),
  );
}

async function startPrivate(): Promise<RabbitmqService> {
  const user = systemUser("rabbitmq");
  const dir = makeTempDir("rabbitmq");
  try {
    const config = dir.sub("config", { owner: user, mode: 0o755 });
    const home = dir.sub("home", { owner: user });
    const mnesia = dir.sub("mnesia", { owner: user });
    const logs = dir.sub("log", { owner: user });
    const nodeName = `${uniqueName("svc")}@localhost`;
    const launch = async (ports: { amqp: number; dist: number; management: number }) => {
      const daemon = new Daemon({
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
      });
      const url = `amqp://guest:guest@127.0.0.1:${ports.amqp}`;
      await daemon.waitReady(async () => {
        const members = daemon.members();
        return (
          listensOn(members, ports.amqp) && listensOn(members, ports.management) && (await amqpHandshake(url))
        );
        // Two minutes: the Erlang VM's boot took over one on this 2-core machine under load 23.
      }, 120_000);
      return daemon;
    };
    const node = await retryOnPortInUse(async () => {
      const ports = { amqp: await freePort(), dist: await freePort(), management: await freePort() };
      writeConfig(config, ports);
      const daemon = await launch(ports);
      return { daemon, ports, url: `amqp://guest:guest@127.0.0.1:${ports.amqp}` };
    });
    return serviceOn({
      url: node.url,
      management: { base: `http://127.0.0.1:${node.ports.management}`, user: "guest", password: "guest" },
      external: false,
      nodeName,
      dir: dir.path,
      processes: () => node.daemon.members(),
      async stopServer() {
        await node.daemon.stop(2000);
        for (const port of Object.values(node.ports)) releasePort(port);
        dir.remove();
      },
      async restartServer(downMs) {
        await node.daemon.stop(30_000);
        await Bun.sleep(downMs);
        node.daemon = await launch(node.ports);
      },
    });
  } catch (error) {
    dir.remove();
    throw error;
  }
}

/**
 * Starts a private node, or uses `SVC_TEST_AMQP_URL` (whose user must be an administrator, and whose
 * management API is `SVC_TEST_AMQP_MANAGEMENT_URL`, default http://<host>:15672).
 */
export async function startRabbitmq(
  env: Record<string, string | undefined> = process.env,
): Promise<RabbitmqService> {
  const external = env.SVC_TEST_AMQP_URL;
  if (external === undefined || external === "") return startPrivate();
  const parsed = new URL(external);
  const base = env.SVC_TEST_AMQP_MANAGEMENT_URL || `http://${parsed.hostname}:15672`;
  return serviceOn({
    url: external,
    management: {
      base: base.replace(/\/$/, ""),
      user: decodeURIComponent(parsed.username || "guest"),
      password: decodeURIComponent(parsed.password || "guest"),
    },
    external: true,
    nodeName: undefined,
    dir: undefined,
    processes: () => [],
    stopServer: async () => {},
    restartServer: async () => {
      throw new Error("an external broker (SVC_TEST_AMQP_URL) cannot be restarted by the tests");
    },
  });
}
