// Acceptance of issue 16's trace parity: the packet corpus over the debug topology, traced by
// netview's trace (lib/ovn-logic) over its SB cache and by Debian's ovn-trace over the same SB, must
// print the same text, stage for stage. The cache is the one the API serves from (OvsdbClient).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildDebugTopology, removeDebugTopology } from "../../fixtures/netview/debug-topology.ts";
import { traceCorpus } from "../../fixtures/netview/trace-corpus.ts";
import type { OvnService } from "../../harness/services/ovn.ts";
import { services } from "../../harness/test-services.ts";
import { buildLogicalNetwork } from "../ovn-logic/logical-network.ts";
import { formatTrace, parseCtState, parseLbDst, tracePacket } from "../ovn-logic/trace.ts";
import { OvsdbClient } from "../ovsdb/ovsdb-client.ts";
import { parseRemotes } from "../ovsdb/remote.ts";

let ovn: OvnService;
let sb: OvsdbClient;

async function ovnTrace(args: string[]): Promise<string> {
  const child = Bun.spawn(["ovn-trace", `--db=${ovn.sbRemote}`, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`ovn-trace exited ${code}: ${err}`);
  return out;
}

beforeAll(async () => {
  ovn = await services.ovn();
  await removeDebugTopology(ovn.nbctl);
  await buildDebugTopology(ovn.nbctl, ovn.chassis[0]?.systemId ?? "chassis-1");
  await ovn.nbctl(["--wait=sb", "sync"]);
  sb = new OvsdbClient({ remotes: parseRemotes(ovn.sbRemote), database: "OVN_Southbound" });
  sb.start();
  await sb.ready();
  // The cache has caught up once it holds as many logical flows as the server reports.
  const expected = (await ovn.sbctl(["--bare", "--columns=_uuid", "list", "Logical_Flow"]))
    .split("\n")
    .filter((l) => l.trim() !== "").length;
  for (let i = 0; i < 200 && sb.cache.count("Logical_Flow") !== expected; i++) await Bun.sleep(50);
}, 60_000);

afterAll(async () => {
  sb?.stop();
  if (ovn !== undefined) await removeDebugTopology(ovn.nbctl);
});

describe("trace parity with ovn-trace", () => {
  test("the corpus has at least 30 packets of every kind the issue names", () => {
    expect(traceCorpus.length).toBeGreaterThanOrEqual(30);
    const text = traceCorpus.map((c) => c.microflow).join("\n");
    for (const kind of ["arp.op", "ip4", "ip6", "tcp", "udp", "icmp4", "nd.target"])
      expect(text).toContain(kind);
    expect(traceCorpus.some((c) => c.lbDst !== undefined)).toBe(true);
  });

  test("every stage and the outcome equal ovn-trace's for every packet", async () => {
    const net = buildLogicalNetwork(sb.cache);
    const differing: { name: string; ovn: string; ours: string }[] = [];
    for (const packet of traceCorpus) {
      const args = [
        ...(packet.lbDst === undefined ? [] : [`--lb-dst=${packet.lbDst}`]),
        ...(packet.ct ?? []).map((s) => `--ct=${s}`),
        packet.microflow,
      ];
      const theirs = await ovnTrace(args);
      const ours = formatTrace(
        tracePacket(net, packet.microflow, {
          ...(packet.lbDst === undefined ? {} : { lbDst: parseLbDst(packet.lbDst) }),
          ...(packet.ct === undefined ? {} : { ct: packet.ct.map(parseCtState) }),
        }),
      );
      if (ours !== theirs) differing.push({ name: packet.name, ovn: theirs, ours });
    }
    expect(differing).toEqual([]);
  }, 120_000);
});
