/**
 * The debug routes' tests share one setup: the debug topology on the run's OVN, netview's clusters on
 * it with their caches caught up, and the app. Every answer `get` reads is checked against the app's
 * OpenAPI document (a mismatch throws). Not imported by any program.
 */
import { buildDebugTopology, removeDebugTopology } from "../../fixtures/netview/debug-topology.ts";
import type { ClusterSet } from "../../lib/network/netview/cluster.ts";
import type { netviewApp } from "../../lib/network/netview/netview-app.ts";
import type { OvnService } from "../services/ovn.ts";
import { services } from "../test-services.ts";
import { ResponseContract } from "./response-contract.ts";
import { send } from "./send.ts";
import { startTestClusters, testApp } from "./test-support.ts";

export interface DebugFixture {
  ovn: OvnService;
  clusters: ClusterSet;
  app: ReturnType<typeof netviewApp>;
  get(path: string): Promise<{ status: number; body: unknown; text: string }>;
  /** Waits until the cache holds every SB logical flow and NB ACL the servers hold. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

async function count(run: (args: string[]) => Promise<string>, table: string): Promise<number> {
  return (await run(["--bare", "--columns=_uuid", "list", table])).split("\n").filter((l) => l.trim() !== "")
    .length;
}

export interface DebugFixtureOptions {
  /** More netview flags for the fixture's clusters (e.g. `--ovs-mgmt-addr-file`). */
  clusterArgs?: string[];
  /** Default 60 s. */
  chassisStaleThresholdMs?: number;
}

export async function startDebugFixture(options: DebugFixtureOptions = {}): Promise<DebugFixture> {
  const ovn = await services.ovn();
  await removeDebugTopology(ovn.nbctl);
  await buildDebugTopology(ovn.nbctl, ovn.chassis[0]?.systemId ?? "chassis-1");
  // Two ports bound on two chassis (the sandbox's; an external OVN has none to bind on).
  if (!ovn.external) {
    await ovn.bindPort(0, "dbg-p0");
    await ovn.bindPort(1, "dbg-q0");
    await ovn.nbctl(["--wait=hv", "sync"]);
  }
  await ovn.nbctl(["--wait=sb", "sync"]);
  const clusters = await startTestClusters(ovn, options.clusterArgs);
  const app = testApp({
    clusters,
    settings: { chassisStaleThresholdMs: options.chassisStaleThresholdMs ?? 60_000 },
  });
  const cluster = clusters.defaultCluster;
  const openapi = await app.handle(new Request("http://localhost/api/v1/openapi.json"));
  const contract = new ResponseContract((await openapi.json()) as Record<string, unknown>);
  const fixture: DebugFixture = {
    ovn,
    clusters,
    app,
    async get(path) {
      const answer = await send(app, "GET", path);
      const problems = contract.problems(
        { path },
        answer.status,
        answer.headers.get("content-type"),
        answer.body,
      );
      if (problems.length > 0)
        throw new Error(`the answer is not what the OpenAPI document says:\n${problems.join("\n")}`);
      return answer;
    },
    async caughtUp() {
      await ovn.nbctl(["--wait=sb", "sync"]);
      const [flows, acls] = await Promise.all([count(ovn.sbctl, "Logical_Flow"), count(ovn.nbctl, "ACL")]);
      for (let i = 0; i < 400; i++) {
        if (cluster.sb.cache.count("Logical_Flow") === flows && cluster.nb.cache.count("ACL") === acls)
          return;
        await Bun.sleep(25);
      }
      throw new Error("netview's caches did not catch up with the servers");
    },
    async stop() {
      clusters.stop();
      if (!ovn.external) {
        await ovn.vsctl(0, ["--if-exists", "del-port", "br-int", "dbg-p0"]);
        await ovn.vsctl(1, ["--if-exists", "del-port", "br-int", "dbg-q0"]);
      }
      await removeDebugTopology(ovn.nbctl);
    },
  };
  await fixture.caughtUp();
  return fixture;
}
