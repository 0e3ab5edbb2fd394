// Netview against a southbound of 40,000+ logical flows: time to ready, CPU and resident memory beside
// `ovsdb-client dump` of the same database in the same run; where one sync's time goes (server, transfer,
// parse, cache build; measured before netview connects, so the server composes its reply cold) and what
// the cache holds against the raw JSON (netview-sync-phases.ts); the SB server's CPU for the dump's
// select and for netview's monitor; the share of the dump's time the server's reply alone takes; and
// list latency of logical flows and port bindings. Prints one JSON line per figure and the ratios.
//
//   bun bench/netview.ts [--flows 40000] [--ports 4000] [--requests 50] [--runs 3]
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { makeTempDir } from "../harness/process/temp-dir.ts";
import { ovnEnv } from "../harness/services/ovn-env.ts";
import { type OvsdbServer, startOvsdbServer } from "../harness/services/ovsdb-server.ts";
import { parseRemote } from "../lib/network/ovsdb/remote.ts";
import { RpcConnection } from "../lib/network/ovsdb/rpc-connection.ts";
import { cpuMs, startNetview, statusKib } from "./netview-process.ts";
import { type SyncPhases, syncPhases } from "./netview-sync-phases.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    flows: { type: "string", default: "40000" },
    ports: { type: "string", default: "4000" },
    requests: { type: "string", default: "50" },
    runs: { type: "string", default: "3" },
  },
});
const flows = Number(values.flows);
const ports = Number(values.ports);
const requests = Number(values.requests);
const runs = Number(values.runs);
const datapaths = 100;

const report = (figure: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(figure)}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};
const round = (x: number) => Math.round(x * 10) / 10;

async function populate(sb: OvsdbServer): Promise<void> {
  const rpc = await RpcConnection.open(parseRemote(sb.unixRemote), { probeIntervalMs: 0 });
  try {
    const inserts = Array.from({ length: datapaths }, (_, i) => ({
      op: "insert",
      table: "Datapath_Binding",
      row: {
        tunnel_key: i + 1,
        external_ids: [
          "map",
          [
            ["name", `sw${i}`],
            ["logical-switch", crypto.randomUUID()],
          ],
        ],
      },
    }));
    const result = (await rpc.request("transact", ["OVN_Southbound", ...inserts])) as {
      uuid?: [string, string];
    }[];
    const dps = result.map((r) => r.uuid?.[1] as string);
    const batch = 5000;
    for (let start = 0; start < flows; start += batch) {
      const ops = [];
      for (let i = start; i < Math.min(flows, start + batch); i++) {
        const dp = dps[i % datapaths] as string;
        ops.push({
          op: "insert",
          table: "Logical_Flow",
          row: {
            logical_datapath: ["uuid", dp],
            pipeline: i % 2 === 0 ? "ingress" : "egress",
            table_id: i % 30,
            priority: (i * 7) % 65536,
            match: `inport == "lsp-${i}" && eth.src == 00:00:00:${(i >> 16) & 255}:${(i >> 8) & 255}:${i & 255} && ip4.src == 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
            actions: i % 3 === 0 ? "next;" : `reg0[0] = 1; reg1 = 0x${i.toString(16)}; next;`,
            external_ids: [
              "map",
              [
                ["source", `northd.c:${1000 + (i % 9000)}`],
                ["stage-name", `ls_in_stage_${i % 30}`],
              ],
            ],
          },
        });
      }
      await rpc.request("transact", ["OVN_Southbound", ...ops]);
    }
    const portOps = Array.from({ length: ports }, (_, i) => ({
      op: "insert",
      table: "Port_Binding",
      row: {
        logical_port: `lsp-${i}`,
        datapath: ["uuid", dps[i % datapaths] as string],
        tunnel_key: Math.floor(i / datapaths) + 1,
        mac: ["set", [`00:00:00:00:${(i >> 8) & 255}:${i & 255} 10.0.${(i >> 8) & 255}.${i & 255}`]],
        external_ids: ["map", [["neutron:device_owner", "compute:nova"]]],
      },
    }));
    await rpc.request("transact", ["OVN_Southbound", ...portOps]);
  } finally {
    rpc.close();
  }
}

/** `ovsdb-client dump` of the whole SB: elapsed and CPU seconds and max RSS (KiB) from /usr/bin/time. */
async function dumpBaseline(
  sb: OvsdbServer,
): Promise<{ seconds: number; cpuSeconds: number; rssKib: number }> {
  const child = Bun.spawn(
    [
      "/usr/bin/time",
      "-f",
      "%e %M %U %S",
      "ovsdb-client",
      "-f",
      "json",
      "dump",
      sb.tcpRemote,
      "OVN_Southbound",
    ],
    {
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  const stderr = await new Response(child.stderr).text();
  if ((await child.exited) !== 0) throw new Error(`ovsdb-client dump failed: ${stderr}`);
  const [seconds, rss, user, system] = (stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  return {
    seconds: seconds ?? Number.NaN,
    cpuSeconds: (user ?? Number.NaN) + (system ?? Number.NaN),
    rssKib: rss ?? Number.NaN,
  };
}

async function latency(
  port: number,
  path: string,
): Promise<{ firstMs: number; medianMs: number; p99Ms: number; bytes: number }> {
  const once = async () => {
    const t = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { ms: performance.now() - t, bytes: body.byteLength };
  };
  const first = await once();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push((await once()).ms);
  return {
    firstMs: round(first.ms),
    medianMs: round(median(times)),
    p99Ms: round(percentile(times, 99)),
    bytes: first.bytes,
  };
}

const dir = makeTempDir("netview-bench");
let netview: Subprocess | undefined;
const servers: OvsdbServer[] = [];
try {
  const env = ovnEnv(dir.path);
  const nb = await startOvsdbServer({
    dir: dir.path,
    name: "nb",
    schema: "/usr/share/ovn/ovn-nb.ovsschema",
    env,
    label: "bench NB",
  });
  servers.push(nb);
  const sb = await startOvsdbServer({
    dir: dir.path,
    name: "sb",
    schema: "/usr/share/ovn/ovn-sb.ovsschema",
    env,
    label: "bench SB",
  });
  servers.push(sb);
  const t0 = performance.now();
  await populate(sb);
  report({
    figure: "populate",
    flows,
    port_bindings: ports,
    datapaths,
    seconds: round((performance.now() - t0) / 1000),
  });

  const dumps: { seconds: number; cpuSeconds: number; rssKib: number }[] = [];
  const readies: { readyMs: number; listeningMs: number; cpuMs: number; rssKib: number; hwmKib: number }[] =
    [];
  const phases: SyncPhases[] = [];
  let lastPort = 0;
  // The SB server's own CPU for each party's read, so the baseline's server work is seen beside ours.
  const serverCpu: { dumpMs: number; netviewMs: number }[] = [];
  const sbCpu = () => cpuMs(sb.daemon.pid ?? 0);
  for (let run = 0; run < runs; run++) {
    let before = sbCpu();
    dumps.push(await dumpBaseline(sb));
    const dumpMs = sbCpu() - before;
    netview?.kill("SIGTERM");
    await netview?.exited;
    // Measured while no other client monitors the same columns: the server would otherwise answer
    // from the reply it composed for that client (its JSON cache), which netview never finds at start.
    phases.push(await syncPhases(sb.tcpRemote, "OVN_Southbound"));
    before = sbCpu();
    const started = await startNetview(nb.tcpRemote, sb.tcpRemote);
    serverCpu.push({ dumpMs, netviewMs: sbCpu() - before });
    netview = started.proc;
    lastPort = started.port;
    readies.push({
      readyMs: started.readyMs,
      listeningMs: started.listeningMs,
      cpuMs: cpuMs(started.proc.pid),
      rssKib: statusKib(started.proc.pid, "VmRSS"),
      hwmKib: statusKib(started.proc.pid, "VmHWM"),
    });
  }
  const dumpSeconds = median(dumps.map((d) => d.seconds));
  const dumpRss = median(dumps.map((d) => d.rssKib));
  const readyMs = median(readies.map((r) => r.readyMs));
  const rss = median(readies.map((r) => r.rssKib));
  const hwm = median(readies.map((r) => r.hwmKib));
  const dumpCpu = median(dumps.map((d) => d.cpuSeconds));
  const readyCpuMs = median(readies.map((r) => r.cpuMs));
  report({
    figure: "ovsdb-client dump (baseline)",
    runs,
    median_seconds: dumpSeconds,
    median_cpu_seconds: round(dumpCpu * 100) / 100,
    median_max_rss_mib: round(dumpRss / 1024),
  });
  report({
    figure: "netview time to ready",
    runs,
    median_seconds: Math.round(readyMs / 10) / 100,
    median_cpu_seconds: Math.round(readyCpuMs / 10) / 100,
    all_ms: readies.map((r) => Math.round(r.readyMs)),
    listening_ms: readies.map((r) => Math.round(r.listeningMs)),
  });
  report({
    figure: "SB server CPU (ms), median: the dump's select against netview's monitor",
    runs,
    dump_ms: median(serverCpu.map((c) => c.dumpMs)),
    netview_ms: median(serverCpu.map((c) => c.netviewMs)),
  });
  const phase = (key: keyof SyncPhases) => median(phases.map((p) => p[key]));
  report({
    figure: "one SB sync in this process, median by phase (ms)",
    runs,
    server_ms: phase("server_ms"),
    transfer_ms: phase("transfer_ms"),
    framing_ms: phase("framing_ms"),
    parse_ms: phase("parse_ms"),
    cache_build_ms: phase("cache_build_ms"),
    total_ms: phase("total_ms"),
    rows: phase("rows"),
  });
  // What no client can go below: the server's own reply, and the one JSON.parse any JavaScript client
  // does, against the dump (decision 342).
  report({
    figure: "ratio the SB server's reply alone / dump (server, and server + transfer + parse)",
    server: Math.round((phase("server_ms") / 1000 / dumpSeconds) * 100) / 100,
    server_transfer_parse:
      Math.round(
        ((phase("server_ms") + phase("transfer_ms") + phase("parse_ms")) / 1000 / dumpSeconds) * 100,
      ) / 100,
  });
  report({
    figure: "cache heap / raw JSON of the SB reply",
    raw_json_mib: phase("raw_json_mib"),
    cache_heap_mib: phase("cache_heap_mib"),
    ratio: Math.round((phase("cache_heap_mib") / phase("raw_json_mib")) * 100) / 100,
  });
  report({
    figure: "netview resident memory at ready",
    median_rss_mib: round(rss / 1024),
    median_peak_rss_mib: round(hwm / 1024),
  });
  report({
    figure: "ratio time to ready / dump",
    ratio: Math.round((readyMs / 1000 / dumpSeconds) * 100) / 100,
  });
  report({
    figure: "ratio netview CPU to ready / dump CPU",
    ratio: Math.round((readyCpuMs / 1000 / dumpCpu) * 100) / 100,
  });
  report({ figure: "ratio netview rss / dump max rss", ratio: Math.round((rss / dumpRss) * 100) / 100 });
  for (const path of ["/api/v1/sb/logical-flows", "/api/v1/sb/port-bindings"]) {
    report({ figure: `list latency ${path}`, requests, ...(await latency(lastPort, path)) });
  }
} finally {
  netview?.kill("SIGTERM");
  await netview?.exited;
  for (const server of servers) await server.daemon.stop();
  dir.remove();
}
