// The WebSocket change stream under a burst: a private NB and SB ovsdb-server and netview as a
// process; a burst of row updates (one transaction each, pipelined) is timed as the raw OVSDB
// monitor receives it (the baseline, in the same run) and as each of N WebSocket clients receives
// the change events; then the same with one more client that never reads, with netview's resident
// memory sampled throughout. Beside the rates: how many changes the server merged (folded) for the
// monitor and for netview, and how many events netview marked `coalesced` (decision 372). Prints
// one JSON line per figure and the ratios. `--transport unix` puts netview and the monitor on the
// NB's unix socket (where a reader that falls 38 KiB behind is merged for), tcp by default.
//
//   bun bench/netview-ws.ts [--changes 10000] [--clients 4] [--runs 3] [--transport tcp|unix]
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { makeTempDir } from "../harness/process/temp-dir.ts";
import { ovnEnv } from "../harness/services/ovn-env.ts";
import { type OvsdbServer, startOvsdbServer } from "../harness/services/ovsdb-server.ts";
import type { Row } from "../lib/network/ovsdb/datum.ts";
import { parseRemote } from "../lib/network/ovsdb/remote.ts";
import { RpcConnection } from "../lib/network/ovsdb/rpc-connection.ts";
import { startNetview, statusKib } from "./netview-process.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    changes: { type: "string", default: "10000" },
    clients: { type: "string", default: "4" },
    runs: { type: "string", default: "3" },
    transport: { type: "string", default: "tcp" },
  },
});
if (values.transport !== "tcp" && values.transport !== "unix") throw new Error("--transport: tcp or unix");
const remoteOf = (server: OvsdbServer) =>
  values.transport === "unix" ? server.unixRemote : server.tcpRemote;
const changes = Number(values.changes);
const clients = Number(values.clients);
const runs = Number(values.runs);
const sets = 100;

const report = (figure: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(figure)}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const round = (x: number, places = 1) => Math.round(x * 10 ** places) / 10 ** places;
const load = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");

/** Address sets of 60 addresses, so each change event carries a row of about a kilobyte. */
async function createSets(nb: OvsdbServer): Promise<void> {
  const rpc = await RpcConnection.open(parseRemote(nb.unixRemote), { probeIntervalMs: 0 });
  const addresses = Array.from({ length: 60 }, (_, i) => `10.77.${Math.floor(i / 250)}.${i % 250}`);
  await rpc.request("transact", [
    "OVN_Northbound",
    ...Array.from({ length: sets }, (_, k) => ({
      op: "insert",
      table: "Address_Set",
      row: { name: `bench_${k}`, addresses: ["set", addresses] },
    })),
  ]);
  rpc.close();
}

/**
 * The value the burst's last transaction writes: seeing it means every earlier change was delivered
 * (both the monitor and the stream keep commit order). A reader that falls behind may be sent several
 * transactions as one update (ovsdb-server folds what a client has not been sent yet), so counting
 * changes would not do.
 */
const lastValue = (tag: number) => `${tag}-${changes - 1}`;

/**
 * Counts what a reader was sent of one burst: the changes the server merged into another (each
 * update of a set whose value is more than one write after the previous one it saw), and how many
 * of the updates that stood for merged ones, and of all, were marked.
 */
class Folds {
  private readonly last = new Map<string, number>();
  merged = 0;
  mergedUnmarked = 0;
  marked = 0;

  see(name: string, value: string, marked: boolean): void {
    const n = Number(value.split("-")[1]);
    const previous = this.last.get(name) ?? n - sets;
    this.last.set(name, n);
    const skipped = (n - previous) / sets - 1;
    if (marked) this.marked++;
    if (skipped > 0) {
      this.merged += skipped;
      if (!marked) this.mergedUnmarked += skipped;
    }
  }
}

/** A raw monitor of Address_Set on the NB: resolves `done` once it has seen the burst's last value. */
async function rawMonitor(nb: OvsdbServer, tag: number) {
  let seen = 0;
  const folds = new Folds();
  let finish: (ms: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const rpc = await RpcConnection.open(parseRemote(remoteOf(nb)), {
    probeIntervalMs: 0,
    onNotification: (method, params) => {
      if (method !== "update") return;
      const rows = (params[1] as { Address_Set?: Record<string, { new?: Row }> }).Address_Set ?? {};
      for (const row of Object.values(rows)) {
        seen++;
        const ids = row.new?.external_ids as ["map", [string, string][]] | undefined;
        const value = ids?.[1].find(([k]) => k === "n")?.[1];
        if (value?.startsWith(`${tag}-`)) folds.see(String(row.new?.name), value, false);
      }
      if (JSON.stringify(rows).includes(`"${lastValue(tag)}"`)) finish(performance.now());
    },
  });
  await rpc.request("monitor", ["OVN_Northbound", null, { Address_Set: { select: { initial: false } } }]);
  return { done, seen: () => seen, folds, close: () => rpc.close() };
}

interface StreamClient {
  done: Promise<number>;
  closed: Promise<number>;
  ws: WebSocket;
  /** Change messages, and their characters, received so far. */
  seen: () => number;
  received: () => number;
  folds: Folds;
}

/** A stream client of the updates; `reads: false` stops reading once it is greeted. */
function streamClient(port: number, tag: number, reads: boolean): Promise<StreamClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/ws?database=nb&table=Address_Set&op=update`);
  let seen = 0;
  let received = 0;
  const folds = new Folds();
  let finish: (ms: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const closed = new Promise<number>((resolve) => {
    ws.onclose = (e) => resolve(e.code);
  });
  return new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error("websocket refused"));
    ws.onmessage = (e) => {
      const text = String(e.data);
      if (text.startsWith('{"type":"hello"')) {
        if (!reads) ws.pause();
        resolve({ done, closed, ws, seen: () => seen, received: () => received, folds });
      } else if (text.startsWith('{"type":"change"')) {
        received += text.length;
        seen++;
        const event = JSON.parse(text) as { coalesced: boolean; new: Row };
        const value = (event.new.external_ids as Record<string, string>).n ?? "";
        if (value.startsWith(`${tag}-`)) folds.see(String(event.new.name), value, event.coalesced);
        if (value === lastValue(tag)) finish(performance.now());
      }
    };
  });
}

async function burst(writer: RpcConnection, tag: number): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < changes; i++) {
    writes.push(
      writer.request("transact", [
        "OVN_Northbound",
        {
          op: "update",
          table: "Address_Set",
          where: [["name", "==", `bench_${i % sets}`]],
          row: { external_ids: ["map", [["n", `${tag}-${i}`]]] },
        },
      ]),
    );
  }
  await Promise.all(writes);
}

async function slowClosedTotal(port: number): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^netview_ws_slow_closed_total(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? Number.NaN);
}

interface RunFigures {
  rawMs: number;
  streamMs: number[];
  peakRssKib: number;
  streamBytes: number;
  /** Row updates the monitor and the first reader were sent (fewer than the changes when folded). */
  rawSeen: number;
  streamSeen: number;
  rawFolds: Folds;
  streamFolds: Folds;
}

/** One burst with `clients` readers (and one stalled client when `slow`). */
async function run(
  netview: { proc: Subprocess; port: number },
  nb: OvsdbServer,
  writer: RpcConnection,
  index: number,
  slow: boolean,
): Promise<RunFigures> {
  const raw = await rawMonitor(nb, index);
  const readers = await Promise.all(
    Array.from({ length: clients }, () => streamClient(netview.port, index, true)),
  );
  const stalled = slow ? await streamClient(netview.port, index, false) : undefined;
  let peak = statusKib(netview.proc.pid, "VmRSS");
  const sampler = setInterval(() => {
    peak = Math.max(peak, statusKib(netview.proc.pid, "VmRSS"));
  }, 20);
  const t0 = performance.now();
  await burst(writer, index);
  const rawAt = await raw.done;
  const readAt = await Promise.all(readers.map((r) => r.done));
  clearInterval(sampler);
  // A paused client never reads the server's close frame: the server's count says it was cut off.
  stalled?.ws.close();
  raw.close();
  for (const r of readers) r.ws.close();
  await Promise.all(readers.map((r) => r.closed));
  return {
    rawMs: rawAt - t0,
    streamMs: readAt.map((at) => at - t0),
    peakRssKib: peak,
    streamBytes: readers[0]?.received() ?? 0,
    rawSeen: raw.seen(),
    streamSeen: readers[0]?.seen() ?? 0,
    rawFolds: raw.folds,
    streamFolds: readers[0]?.folds ?? new Folds(),
  };
}

const dir = makeTempDir("netview-ws-bench");
const servers: OvsdbServer[] = [];
let netview: { proc: Subprocess; port: number } | undefined;
try {
  const env = ovnEnv(dir.path);
  for (const [name, schema] of [
    ["nb", "/usr/share/ovn/ovn-nb.ovsschema"],
    ["sb", "/usr/share/ovn/ovn-sb.ovsschema"],
  ] as const) {
    servers.push(await startOvsdbServer({ dir: dir.path, name, schema, env, label: `bench ${name}` }));
  }
  const [nb, sb] = servers as [OvsdbServer, OvsdbServer];
  await createSets(nb);
  netview = await startNetview(remoteOf(nb), sb.tcpRemote, [
    `--events-max=${Math.max(200_000, 4 * changes * runs)}`,
  ]);
  const idleRssKib = statusKib(netview.proc.pid, "VmRSS");
  const writer = await RpcConnection.open(parseRemote(nb.unixRemote), { probeIntervalMs: 0 });
  report({
    figure: "setup",
    changes,
    clients,
    runs,
    transport: values.transport,
    row_bytes: "~1 KiB",
    load: await load(),
  });
  const plain: RunFigures[] = [];
  const withSlow: RunFigures[] = [];
  for (let r = 0; r < runs; r++) {
    // Alternated, so a change in the machine's load falls on both alike.
    plain.push(await run(netview, nb, writer, 2 * r, false));
    withSlow.push(await run(netview, nb, writer, 2 * r + 1, true));
  }
  writer.close();
  const rawRate = median([...plain, ...withSlow].map((f) => changes / (f.rawMs / 1000)));
  const streamRate = (fs: RunFigures[]) => median(fs.map((f) => changes / (Math.max(...f.streamMs) / 1000)));
  const plainRate = streamRate(plain);
  const slowRate = streamRate(withSlow);
  const all = [...plain, ...withSlow];
  report({
    figure: "raw OVSDB monitor (baseline)",
    median_changes_per_s: Math.round(rawRate),
    row_updates_sent: all.map((f) => f.rawSeen),
    changes_folded: all.map((f) => f.rawFolds.merged),
  });
  report({
    figure: `netview stream, ${clients} clients`,
    median_changes_per_s_each: Math.round(plainRate),
    median_events_per_s_total: Math.round(plainRate * clients),
    ratio_to_raw_monitor: round(plainRate / rawRate, 2),
    change_events_sent: plain.map((f) => f.streamSeen),
  });
  report({
    figure: "changes the server merged for netview, and events netview marked coalesced (first reader)",
    changes_folded: all.map((f) => f.streamFolds.merged),
    changes_folded_unmarked: all.map((f) => f.streamFolds.mergedUnmarked),
    events_marked: all.map((f) => f.streamFolds.marked),
    events: all.map((f) => f.streamSeen),
  });
  report({
    figure: `netview stream, ${clients} clients and one that never reads`,
    median_changes_per_s_each: Math.round(slowRate),
    ratio_to_without_it: round(slowRate / plainRate, 2),
    stalled_clients: runs,
    cut_off_by_the_server: await slowClosedTotal(netview.port),
  });
  const peak = (fs: RunFigures[]) => median(fs.map((f) => f.peakRssKib));
  report({
    figure: "netview resident memory",
    idle_mib: round(idleRssKib / 1024),
    median_peak_mib: round(peak(plain) / 1024),
    median_peak_with_stalled_client_mib: round(peak(withSlow) / 1024),
    ratio_with_to_without_stalled_client: round(peak(withSlow) / peak(plain), 2),
    stream_per_client_mib: round(median(plain.map((f) => f.streamBytes)) / 1024 / 1024),
  });
  report({ figure: "load after", load: await load() });
} finally {
  netview?.proc.kill("SIGTERM");
  await netview?.proc.exited;
  for (const server of servers) await server.daemon.stop();
  dir.remove();
}
