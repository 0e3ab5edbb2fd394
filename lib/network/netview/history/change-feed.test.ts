// The change feed against the harness's OVN: changes made with ovn-nbctl come out as events in
// commit order, the first sync is not an event, and changes made while netview was cut off come out
// of the resync marked as such.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eventually, startTestClusters } from "../../../../harness/netview/test-support.ts";
import { runCommand } from "../../../../harness/process/run-command.ts";
import type { OvnService } from "../../../../harness/services/ovn.ts";
import { services } from "../../../../harness/test-services.ts";
import { cliTableRows } from "../../ovsdb/cli-table.ts";
import type { ClusterSet } from "../cluster.ts";
import type { ChangeEvent } from "./change-event.ts";
import { ChangeFeed } from "./change-feed.ts";

let ovn: OvnService;
let clusters: ClusterSet;
let feed: ChangeFeed;
const events: ChangeEvent[] = [];

beforeAll(async () => {
  ovn = await services.ovn();
  clusters = await startTestClusters(ovn);
  feed = new ChangeFeed({ clusters: clusters.all, lastSeq: 41, lastTxn: 7 });
  feed.addSink((batch) => events.push(...batch));
  feed.start();
}, 60_000);

afterAll(async () => {
  feed?.stop();
  clusters?.stop();
  for (const name of ["nvf-sw0", "nvf-sw1", "nvf-offline"]) await ovn?.nbctl(["--if-exists", "ls-del", name]);
});

const nbEvents = (table: string) => events.filter((e) => e.database === "nb" && e.table === table);

describe("ChangeFeed", () => {
  test("the first sync is the starting state, not a change", () => {
    expect(events).toEqual([]);
    expect(feed.lastSeq).toBe(41);
  });

  test("ovn-nbctl changes come out in order, numbered on, with the rows ovn-nbctl shows", async () => {
    await ovn.nbctl(["ls-add", "nvf-sw0"]);
    await ovn.nbctl(["set", "Logical_Switch", "nvf-sw0", "other_config:subnet=10.9.0.0/24"]);
    await ovn.nbctl(["lsp-add", "nvf-sw0", "nvf-p0", "--", "ls-add", "nvf-sw1"]);
    await ovn.nbctl(["ls-del", "nvf-sw1"]);
    await eventually(() => expect(nbEvents("Logical_Switch").length).toBe(5));
    const switches = nbEvents("Logical_Switch");
    // Transactions come in commit order; the rows inside one have no order of their own.
    const txns = [...new Set(switches.map((e) => e.txn))];
    const shown = switches
      .map((e) => [txns.indexOf(e.txn), e.op, (e.new ?? e.old)?.name] as const)
      .sort((a, b) => a[0] - b[0] || String(a[2]).localeCompare(String(b[2])));
    expect(shown).toEqual([
      [0, "insert", "nvf-sw0"],
      [1, "update", "nvf-sw0"],
      [2, "update", "nvf-sw0"],
      [2, "insert", "nvf-sw1"],
      [3, "delete", "nvf-sw1"],
    ]);
    const byName = (name: string, op: string) =>
      switches.filter((e) => e.op === op && (e.new ?? e.old)?.name === name);
    const [configured, withPort] = byName("nvf-sw0", "update");
    expect(configured?.old).toEqual({ other_config: {} });
    expect(withPort?.old).toEqual({ ports: [] });
    // Seq is contiguous from the given start; one ovn-nbctl transaction is one txn.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => 42 + i));
    const port = nbEvents("Logical_Switch_Port")[0];
    expect(port?.txn).toBe(withPort?.txn);
    expect(byName("nvf-sw1", "insert")[0]?.txn).toBe(withPort?.txn);
    const schema = clusters.defaultCluster.nb.cache.schema?.tables.Logical_Switch;
    if (schema === undefined) throw new Error("schema");
    const cli = cliTableRows(await ovn.nbctl(["--format=json", "list", "Logical_Switch", "nvf-sw0"]), schema);
    expect(withPort?.new).toEqual(cli[0]);
    expect(events.every((e) => !e.resync && e.cluster === "default")).toBe(true);
  }, 60_000);

  test("a change made while the NB was down comes out of the resync with resync: true", async () => {
    if (ovn.dir === undefined) return;
    events.length = 0;
    await ovn.nb.stop();
    try {
      await eventually(() => expect(clusters.defaultCluster.nb.cache.authoritative).toBe(false));
      await runCommand("ovsdb-tool", [
        "transact",
        join(ovn.dir, "central", "ovnnb.db"),
        JSON.stringify([
          "OVN_Northbound",
          { op: "insert", table: "Logical_Switch", row: { name: "nvf-offline" } },
        ]),
      ]);
    } finally {
      await ovn.nb.start();
    }
    await eventually(() => expect(nbEvents("Logical_Switch").length).toBe(1));
    expect(nbEvents("Logical_Switch")[0]).toMatchObject({
      op: "insert",
      resync: true,
      new: { name: "nvf-offline" },
    });
  }, 60_000);

  test("a suspended cluster records nothing", async () => {
    events.length = 0;
    clusters.defaultCluster.suspended = true;
    try {
      await ovn.nbctl(["ls-del", "nvf-offline"]);
      await eventually(() =>
        expect(
          clusters.defaultCluster.nb.cache.rows("Logical_Switch").some((r) => r.name === "nvf-offline"),
        ).toBe(false),
      );
    } finally {
      clusters.defaultCluster.suspended = false;
    }
    expect(nbEvents("Logical_Switch")).toEqual([]);
  }, 60_000);
});
