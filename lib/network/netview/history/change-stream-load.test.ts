// The change stream under load against the harness's OVN (issue 31): 5,000 Address_Set updates and
// some deletes and inserts, one transaction each, pipelined as fast as the NB server takes them,
// while netview (a process, on the NB's unix socket) streams them to a client that reads quickly and
// one that reads slowly. For every row, the store and both streams give each committed value in
// order, or a marker (`coalesced`, `resync`) where ovsdb-server merged some, and end at what
// ovn-nbctl lists. Netview is frozen for a moment in the first run, so the server certainly merges;
// in the second it is killed in the middle and restarted on its state directory.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  byRow,
  Committed,
  checkRow,
  nbBurst,
  type SeenEvent,
  StreamReader,
  storedChanges,
} from "../../../../harness/netview/change-load.ts";
import { type NetviewProcess, startNetviewProcess } from "../../../../harness/netview/netview-process.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import type { OvnService } from "../../../../harness/services/ovn.ts";
import { services } from "../../../../harness/test-services.ts";
import { compare } from "../../../foundation/collections/compare.ts";
import { cliTableRows } from "../../ovsdb/cli-table.ts";
import { parseRemote } from "../../ovsdb/remote.ts";
import { RpcConnection } from "../../ovsdb/rpc-connection.ts";
import { parseSchema, type TableSchema } from "../../ovsdb/schema.ts";

let ovn: OvnService;
let stateDir = "";
let addressSet: TableSchema;
const running: NetviewProcess[] = [];
const shape = { rows: 25, updates: 5_000, deletes: 5, inserts: 5 };

async function startNetview(port?: number): Promise<NetviewProcess> {
  const netview = await startNetviewProcess(
    [
      `--ovnnb-db=${ovn.nbSocket}`,
      `--ovnsb-db=${ovn.sbRemote}`,
      `--state-dir=${stateDir}`,
      "--events-max=200000",
      "--probe-interval=5s",
    ],
    port === undefined ? {} : { port },
  );
  running.push(netview);
  return netview;
}

async function stop(netview: NetviewProcess, signal: "SIGTERM" | "SIGKILL"): Promise<void> {
  netview.proc.kill(signal);
  await netview.proc.exited;
  running.splice(running.indexOf(netview), 1);
}

/**
 * Runs the burst with a fast and a slow reader, `during` acting on netview when a share of the
 * writes is done; then checks every row in the store and in both streams.
 */
async function burstAndCheck(prefix: string, during: (netview: NetviewProcess) => Promise<NetviewProcess>) {
  let netview = await startNetview();
  const since = (
    (await (await fetch(`${netview.base}/api/v1/events?limit=1`)).json()) as {
      retained: { latest_seq: number | null };
    }
  ).retained.latest_seq;
  const readers = [
    new StreamReader(netview.base, prefix, false),
    new StreamReader(netview.base, prefix, true),
  ];
  const committed = new Committed();
  let acting: Promise<void> | undefined;
  try {
    await nbBurst({
      remote: ovn.nbSocket,
      prefix,
      ...shape,
      committed,
      progress: (done, total) => {
        if (done === Math.floor(total * 0.6))
          acting = during(netview).then((next) => {
            netview = next;
          });
      },
      betweenHalves: async () => await acting,
    });
    const finalSeq = async () => (await storedChanges(netview.base, prefix, since ?? 0)).at(-1)?.seq;
    // Settled: every row's last event is its last committed value, and both readers have it.
    let stored: SeenEvent[] = [];
    await eventually(async () => {
      stored = await storedChanges(netview.base, prefix, since ?? 0);
      const rows = byRow(stored);
      for (const [uuid, values] of committed.values)
        expect([
          uuid,
          rows.get(uuid)?.at(-1)?.op === "delete" ? null : rows.get(uuid)?.at(-1)?.new?.external_ids,
        ]).toEqual([uuid, values.at(-1) === null ? null : values.at(-1) === "" ? {} : { v: values.at(-1) }]);
    }, 60_000);
    const last = await finalSeq();
    await eventually(() => expect(readers.map((r) => r.changes.at(-1)?.seq)).toEqual([last, last]), 60_000);

    // The store: seqs rise, each row's values in order, skips marked, ending at the database's state.
    const seqs = stored.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const rows = byRow(stored);
    let skipped = 0;
    let marked = 0;
    const problems: string[] = [];
    for (const [uuid, values] of committed.values) {
      const check = checkRow(uuid, values, rows.get(uuid) ?? []);
      problems.push(...check.problems);
      skipped += check.skipped;
      marked += check.marked;
    }
    expect(problems).toEqual([]);
    const listed = cliTableRows(await ovn.nbctl(["--format=json", "list", "Address_Set"]), addressSet).filter(
      (r) => String(r.name).startsWith(prefix),
    );
    const finals = [...rows.values()].map((events) => events.at(-1)).filter((e) => e?.op !== "delete");
    const byUuid = (a: { _uuid?: unknown }, b: { _uuid?: unknown }) =>
      compare(String(a._uuid), String(b._uuid));
    expect(finals.map((e) => e?.new as Record<string, unknown>).sort(byUuid)).toEqual(listed.sort(byUuid));

    // Both streams are the store, event for event.
    for (const reader of readers) expect(reader.changes).toEqual(stored);
    return { netview, skipped, marked, events: stored.length, closes: readers.map((r) => r.closeCodes) };
  } finally {
    for (const reader of readers) reader.stop();
  }
}

beforeAll(async () => {
  ovn = await services.ovn();
  stateDir = mkdtempSync(join(tmpdir(), "svc-netview-load-"));
  const rpc = await RpcConnection.open(parseRemote(ovn.nbSocket), { probeIntervalMs: 0 });
  const schema = parseSchema(await rpc.request("get_schema", ["OVN_Northbound"]));
  rpc.close();
  addressSet = schema.tables.Address_Set as TableSchema;
  writeFileSync(join(stateDir, ".keep"), "");
}, 60_000);

afterEach(async () => {
  for (const netview of [...running]) await stop(netview, "SIGTERM");
});

afterAll(async () => {
  if (stateDir !== "") rmSync(stateDir, { recursive: true, force: true });
  const names = (await ovn?.nbctl(["--bare", "--columns=name", "list", "Address_Set"])) ?? "";
  for (const name of names.split("\n").filter((n) => n.startsWith("nvl_")))
    await ovn.nbctl(["--if-exists", "destroy", "Address_Set", name]);
});

describe("the change stream under a burst of 5,000 NB row changes", () => {
  test("frozen for a moment: what the server merged is marked, nothing else is skipped", async () => {
    const result = await burstAndCheck("nvl_a_", async (netview) => {
      // Netview reads nothing for half a second while the writes go on: the server must hold back.
      netview.proc.kill("SIGSTOP");
      await Bun.sleep(500);
      netview.proc.kill("SIGCONT");
      return netview;
    });
    expect(result.skipped).toBeGreaterThan(0);
    // /metrics counts the marked events (of every table and database, these among them).
    const metrics = await (await fetch(`${result.netview.base}/metrics`)).text();
    const counted = Number(/^netview_events_coalesced_total(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1]);
    expect(counted).toBeGreaterThanOrEqual(result.marked);
  }, 240_000);

  test("killed in the middle and restarted on its state directory: what changed while down is resync", async () => {
    const result = await burstAndCheck("nvl_b_", async (netview) => {
      await stop(netview, "SIGKILL");
      await Bun.sleep(300);
      return startNetview(netview.port);
    });
    expect(result.closes.every((codes) => codes.includes(1006))).toBe(true);
    expect(result.skipped).toBeGreaterThan(0);
  }, 240_000);
});
