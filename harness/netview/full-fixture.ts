/**
 * netview with everything on, for the tests that go over every route of its OpenAPI document (the
 * document's own test, the contract test, the fuzz test): the debug topology on the run's OVN with
 * two bound ports and a gateway on both chassis, both chassis switches monitored, the operations
 * (events, snapshots, telemetry, alerts) and writes enabled with a token. Not imported by any program.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildDebugTopology,
  debugRouter,
  removeDebugTopology,
} from "../../fixtures/netview/debug-topology.ts";
import type { ClusterSet } from "../../lib/network/netview/cluster.ts";
import { buildOps, type NetviewOps } from "../../lib/network/netview/netview-ops.ts";
import type { OpenApiDocument } from "../../lib/network/netview/openapi-document.ts";
import type { OvnService } from "../services/ovn.ts";
import { services } from "../test-services.ts";
import { ResponseContract } from "./response-contract.ts";
import { type Answer, type NetviewApp, send as sendTo } from "./send.ts";
import { eventually, startTestClusters, testApp, testOpsOptions } from "./test-support.ts";

export interface CallOptions {
  body?: unknown;
  /** The bearer token sent (default the tests' write token); null sends none. */
  auth?: string | null;
  /** Sent as the body as it is, not as JSON of `body`. */
  raw?: string;
}

export interface FullFixture {
  ovn: OvnService;
  clusters: ClusterSet;
  ops: NetviewOps;
  app: NetviewApp;
  document: OpenApiDocument;
  contract: ResponseContract;
  /** Sends one request through the app; the answer is not checked. */
  send(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** As `send`, and throws unless the answer is what the document says of the operation. */
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Completed (re)syncs of the default cluster's NB and SB sessions. */
  syncs(): { nb: number; sb: number };
  stop(): Promise<void>;
}

export async function startFullFixture(): Promise<FullFixture> {
  const ovn = await services.ovn();
  const [one, two] = ovn.chassis;
  if (one === undefined || two === undefined)
    throw new Error("the full fixture needs the sandbox's two chassis");
  const dir = mkdtempSync(join(tmpdir(), "svc-netview-full-"));
  const mgmt = join(dir, "mgmt.txt");
  writeFileSync(mgmt, `${one.systemId} ${one.dbRemote}\n${two.systemId} ${two.dbRemote}\n`);
  await removeDebugTopology(ovn.nbctl);
  await buildDebugTopology(ovn.nbctl, one.systemId);
  // A second gateway chassis, so that failover and evacuate have somewhere to go.
  await ovn.nbctl(["lrp-set-gateway-chassis", debugRouter.pub.name, two.systemId, "10"]);
  await ovn.bindPort(0, "dbg-p0");
  await ovn.bindPort(1, "dbg-q0");
  await ovn.nbctl(["--wait=hv", "sync"]);
  const clusters = await startTestClusters(ovn, [`--ovs-mgmt-addr-file=${mgmt}`]);
  const ops = buildOps({
    options: testOpsOptions(ovn, { writeEnabled: true }),
    clusters,
  });
  ops.start();
  const app = testApp({ clusters, ops, settings: { writeEnabled: true }, metrics: true });
  await eventually(() => {
    for (const member of clusters.defaultCluster.fleet?.members.values() ?? [])
      if (!member.client.cache.authoritative) throw new Error(`switch of ${member.systemId} not synced`);
    if (clusters.defaultCluster.sb.cache.rows("Port_Binding").every((b) => b.chassis === null))
      throw new Error("no port bound yet");
  });
  const document = (await (
    await app.handle(new Request("http://localhost/api/v1/openapi.json"))
  ).json()) as OpenApiDocument;
  const contract = new ResponseContract(document);
  const send = (method: string, path: string, options: CallOptions = {}) =>
    sendTo(app, method, path, {
      body: options.raw ?? options.body,
      actor: "contract@test",
      ...(options.auth === undefined ? {} : { auth: options.auth }),
    });
  const cluster = clusters.defaultCluster;
  return {
    ovn,
    clusters,
    ops,
    app,
    document,
    contract,
    send,
    async call(method, path, options) {
      const answer = await send(method, path, options);
      const problems = contract.problems(
        { method, path },
        answer.status,
        answer.headers.get("content-type"),
        answer.body,
      );
      if (problems.length > 0)
        throw new Error(
          `${method} ${path}: the answer is not what the OpenAPI document says:\n${problems.join("\n")}`,
        );
      return answer;
    },
    syncs: () => ({ nb: cluster.nb.syncs, sb: cluster.sb.syncs }),
    async stop() {
      ops.stop();
      clusters.stop();
      await ovn.vsctl(0, ["--if-exists", "del-port", "br-int", "dbg-p0"]);
      await ovn.vsctl(1, ["--if-exists", "del-port", "br-int", "dbg-q0"]);
      await removeDebugTopology(ovn.nbctl);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
