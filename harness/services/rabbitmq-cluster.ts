import { randomBytes } from "node:crypto";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { systemUser } from "../process/system-user.ts";
import { makeTempDir, type TempDir } from "../process/temp-dir.ts";
import { waitFor } from "../process/wait-for.ts";
import { addVhost, type Management, managementCall, vhostUrl } from "./rabbitmq.ts";
import { layNode, type NodePorts, nodeReady, nodeStartTimeoutMs } from "./rabbitmq-node.ts";
import { uniqueName } from "./unique-name.ts";

/** One node of the cluster: killed and started again (same name, ports and data) by the faults. */
export interface RabbitmqNode {
  /** `svc_<hex>@localhost` */
  readonly nodeName: string;
  /** `amqp://guest:guest@127.0.0.1:<port>` (the default vhost). */
  readonly url: string;
  readonly running: boolean;
  /** SIGKILL to its VM, as a machine that dies. */
  kill(): Promise<void>;
  /** Starts it again: it rejoins the cluster from its own data and its mirrors sync again. */
  start(): Promise<void>;
  processes(): number[];
}

/** Where a queue lives: its master's node and the nodes holding a mirror (synchronised or not). */
export interface QueuePlacement {
  node: string;
  mirrors: string[];
  synchronised: string[];
}

/** A private three-node RabbitMQ cluster (decision 36). */
export interface RabbitmqCluster {
  readonly nodes: readonly RabbitmqNode[];
  /**
   * A fresh vhost with all rights for guest and the policy mirroring its queues on every node
   * (`ha-mode: all`, `ha-sync-mode: automatic`); returns one URL of it per node, in node order.
   */
  createVhost(name?: string): Promise<string[]>;
  /** Where `queue` of the vhost of `url` lives now, asked of any running node. */
  placement(url: string, queue: string): Promise<QueuePlacement | undefined>;
  /** The node object of a node name. */
  node(name: string): RabbitmqNode | undefined;
  processes(): number[];
  stop(): Promise<void>;
}

/** The mirroring policy of a vhost: RabbitMQ 3.x classic queue mirroring, removed in 4.0. */
const mirroring = {
  pattern: ".*",
  "apply-to": "queues",
  definition: { "ha-mode": "all", "ha-sync-mode": "automatic" },
  priority: 0,
};

class Node implements RabbitmqNode {
  readonly url: string;
  readonly management: Management;
  private readonly daemon: RestartableDaemon;

  constructor(
    readonly nodeName: string,
    readonly ports: NodePorts,
    readonly dir: TempDir,
    options: { cookie: string; peers: readonly string[] },
  ) {
    const layout = layNode({ dir, user: systemUser("rabbitmq"), nodeName, ports, ...options });
    this.url = layout.url;
    this.management = { base: `http://127.0.0.1:${ports.management}`, user: "guest", password: "guest" };
    this.daemon = new RestartableDaemon(
      layout.spec,
      (daemon) => nodeReady(daemon.members(), ports, layout.url),
      nodeStartTimeoutMs,
    );
  }

  get running(): boolean {
    return this.daemon.running;
  }

  kill(): Promise<void> {
    return this.daemon.kill();
  }

  start(): Promise<void> {
    return this.daemon.start();
  }

  /** Stops it (the VM lingers after the broker's own shutdown: SIGKILLed soon, decision 27), frees its ports and dir. */
  async remove(): Promise<void> {
    await this.daemon.stop();
    for (const port of Object.values(this.ports)) releasePort(port);
    this.dir.remove();
  }

  processes(): number[] {
    return this.daemon.members();
  }
}

/** A node laid out on fresh ports in a dir of its own; the first node is started here (port races retried). */
function layOut(nodeName: string, options: { cookie: string; peers: readonly string[]; start: boolean }) {
  return retryOnPortInUse(async () => {
    const ports = { amqp: await freePort(), dist: await freePort(), management: await freePort() };
    const node = new Node(nodeName, ports, makeTempDir("rabbitmq-node"), options);
    if (!options.start) return node;
    try {
      await node.start();
    } catch (error) {
      await node.remove();
      throw error;
    }
    return node;
  });
}

async function clusterSize(node: Node): Promise<number> {
  const nodes = (await managementCall(node.management, "GET", "/nodes")) as { running: boolean }[];
  return nodes.filter((n) => n.running).length;
}

/**
 * Starts three nodes (or `size`) sharing one Erlang cookie: the first alone, then the others at once,
 * each joining the first at its first boot (classic config peer discovery); resolves once every node
 * sees all of them running.
 */
export async function startRabbitmqCluster(options: { size?: number } = {}): Promise<RabbitmqCluster> {
  const size = options.size ?? 3;
  const cookie = randomBytes(16).toString("hex").toUpperCase();
  const nodes: Node[] = [];
  const stop = async () => {
    await Promise.allSettled(nodes.map((n) => n.remove()));
  };
  try {
    const first = `${uniqueName("svc")}@localhost`;
    nodes.push(await layOut(first, { cookie, peers: [], start: true }));
    for (let i = 1; i < size; i++)
      nodes.push(await layOut(`${uniqueName("svc")}@localhost`, { cookie, peers: [first], start: false }));
    // The others at once, each joining the first.
    await Promise.all(nodes.slice(1).map((n) => n.start()));
    await waitFor(
      async () => {
        for (const node of nodes) if ((await clusterSize(node)) !== size) return false;
        return true;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        onTimeout: () => new Error("the RabbitMQ nodes did not form one cluster"),
      },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const anyRunning = (): Node => {
    const node = nodes.find((n) => n.running);
    if (node === undefined) throw new Error("no node of the RabbitMQ cluster is running");
    return node;
  };
  return {
    nodes,
    async createVhost(name) {
      const vhost = name ?? uniqueName("svc_test");
      const { management } = anyRunning();
      await addVhost(management, vhost);
      await managementCall(
        management,
        "PUT",
        `/policies/${encodeURIComponent(vhost)}/svc-mirror-all`,
        mirroring,
      );
      return nodes.map((n) => vhostUrl(n.url, vhost));
    },
    async placement(url, queue) {
      const vhost = decodeURIComponent(new URL(url).pathname.slice(1));
      const path = `/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}`;
      try {
        const found = (await managementCall(anyRunning().management, "GET", path)) as {
          node: string;
          slave_nodes?: string[];
          synchronised_slave_nodes?: string[];
        };
        return {
          node: found.node,
          mirrors: found.slave_nodes ?? [],
          synchronised: found.synchronised_slave_nodes ?? [],
        };
      } catch {
        return undefined;
      }
    },
    node: (name) => nodes.find((n) => n.nodeName === name),
    processes: () => nodes.flatMap((n) => n.processes()),
    stop,
  };
}
