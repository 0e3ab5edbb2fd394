// bun bench/netview-trace.ts [--runs 5]: the median latency of one trace by netview (lib/network/ovn-logic
// over its SB cache, network built once per SB version) beside ovn-trace in daemon mode (--detach,
// queried with ovs-appctl, which adds a process start to each of its traces) over the trace corpus
// on the debug topology, in the same run; prints the ratio.
import { parseArgs } from "node:util";
import { buildDebugTopology } from "../fixtures/netview/debug-topology.ts";
import { traceCorpus } from "../fixtures/netview/trace-corpus.ts";
import { startOvn } from "../harness/services/ovn.ts";
import { buildLogicalNetwork } from "../lib/network/ovn-logic/logical-network.ts";
import { tracePacket } from "../lib/network/ovn-logic/trace.ts";
import { formatTrace } from "../lib/network/ovn-logic/trace-format.ts";
import { OvsdbClient } from "../lib/network/ovsdb/ovsdb-client.ts";
import { parseRemotes } from "../lib/network/ovsdb/remote.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const runs = Number(values.runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const ovn = await startOvn({ chassis: 1 });
try {
  await buildDebugTopology(ovn.nbctl, ovn.chassis[0]?.systemId ?? "chassis-1");
  await ovn.nbctl(["--wait=sb", "sync"]);
  const sb = new OvsdbClient({ remotes: parseRemotes(ovn.sbRemote), database: "OVN_Southbound" });
  sb.start();
  await sb.ready();
  await Bun.sleep(500);
  const packets = traceCorpus.filter((c) => c.lbDst === undefined && c.ct === undefined);
  const built = performance.now();
  const net = buildLogicalNetwork(sb.cache);
  for (const p of packets) formatTrace(tracePacket(net, p.microflow));
  const firstMs = performance.now() - built;
  const ours: number[] = [];
  for (let r = 0; r < runs; r++)
    for (const p of packets) {
      const t = performance.now();
      formatTrace(tracePacket(net, p.microflow));
      ours.push(performance.now() - t);
    }
  const ctl = `${ovn.dir}/ovn-trace.ctl`;
  const daemon = Bun.spawn([
    "ovn-trace",
    `--db=${ovn.sbRemote}`,
    `--unixctl=${ctl}`,
    "--detach",
    "--no-chdir",
    `--pidfile=${ovn.dir}/ovn-trace.pid`,
    `--log-file=${ovn.dir}/ovn-trace.log`,
  ]);
  await daemon.exited;
  await Bun.sleep(1000);
  const theirs: number[] = [];
  for (let r = 0; r < Math.max(1, Math.floor(runs / 2)); r++)
    for (const p of packets) {
      const t = performance.now();
      Bun.spawnSync(["ovs-appctl", "-t", ctl, "trace", p.microflow]);
      theirs.push(performance.now() - t);
    }
  Bun.spawnSync(["ovs-appctl", "-t", ctl, "exit"]);
  sb.stop();
  console.log(`packets ${packets.length}, flows ${sb.cache.count("Logical_Flow")}`);
  console.log(
    `netview: first pass (build + compile + ${packets.length} traces) ${firstMs.toFixed(1)} ms, median trace ${median(ours).toFixed(3)} ms`,
  );
  console.log(`ovn-trace --detach via ovs-appctl: median trace ${median(theirs).toFixed(3)} ms`);
  console.log(`ratio netview / ovn-trace: ${(median(ours) / median(theirs)).toFixed(3)}`);
} finally {
  await ovn.stop();
}
