import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { systemUser } from "../process/system-user.ts";
import { makeTempDir } from "../process/temp-dir.ts";
import { layNode, type NodePorts, nodeReady, nodeStartTimeoutMs } from "./rabbitmq-node.ts";
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
export interface Management {
  base: string;
  user: string;
  password: string;
}

export function vhostUrl(serverUrl: string, vhost: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(vhost)}`;
  return url.toString();
}

/** One call of the management HTTP API; a GET returns the parsed answer. */
export async function managementCall(
  api: Management,
  method: "GET" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
): Promise<unknown> {
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
  return method === "GET" ? await response.json() : undefined;
}

/** A vhost with all rights for the management user. */
export async function addVhost(management: Management, vhost: string): Promise<void> {
  const path = encodeURIComponent(vhost);
  await managementCall(management, "PUT", `/vhosts/${path}`, {});
  await managementCall(management, "PUT", `/permissions/${path}/${encodeURIComponent(management.user)}`, {
    configure: ".*",
    write: ".*",
    read: ".*",
  });
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
      created.push(vhost);
      await addVhost(management, vhost);
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

async function startPrivate(): Promise<RabbitmqService> {
  const user = systemUser("rabbitmq");
  const dir = makeTempDir("rabbitmq");
  try {
    const nodeName = `${uniqueName("svc")}@localhost`;
    const launch = async (ports: NodePorts) => {
      const { spec, url } = layNode({ dir, user, nodeName, ports });
      const daemon = new Daemon(spec);
      await daemon.waitReady(() => nodeReady(daemon.members(), ports, url), nodeStartTimeoutMs);
      return daemon;
    };
    const node = await retryOnPortInUse(async () => {
      const ports = { amqp: await freePort(), dist: await freePort(), management: await freePort() };
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
