// Change history across a restart with a state directory, against the harness's OVN: what
// ovn-nbctl changed while netview was stopped (a switch added, one changed, one removed) comes out
// of the next start's first sync as events with `resync: true`, numbered on, each once, with the
// rows ovn-nbctl lists; a start with nothing changed records nothing; without a state directory the
// first sync is only the starting state.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, startTestClusters } from "../../../../harness/netview/test-support.ts";
import type { OvnService } from "../../../../harness/services/ovn.ts";
import { services } from "../../../../harness/test-services.ts";
import { cliTableRows } from "../../ovsdb/cli-table.ts";
import type { ClusterSet } from "../cluster.ts";
import { openStateDb } from "../state/state-db.ts";
import type { ChangeEvent } from "./change-event.ts";
import { History } from "./history.ts";

let ovn: OvnService;
let stateDir = "";
const retention = { maxAgeMs: 3_600_000, maxEvents: 100_000 };

/** netview's history on the sandbox until `stop`: its clusters, and every event it records. */
async function startHistory(keepLastState: boolean) {
  const clusters: ClusterSet = await startTestClusters(ovn);
  const db = openStateDb(keepLastState ? stateDir : undefined);
  const history = new History({ db, clusters, retention, keepLastState });
  const events: ChangeEvent[] = [];
  history.feed.addSink((batch) => events.push(...batch));
  history.start();
  return {
    clusters,
    history,
    events,
    switches: () =>
      events.filter((e) => e.table === "Logical_Switch" && String((e.new ?? e.old)?.name).startsWith("nvh-")),
    stop: () => {
      history.stop();
      clusters.stop();
      db.close();
    },
  };
}

/** The row ovn-nbctl lists for a switch, in the API's convention. */
async function listed(clusters: ClusterSet, name: string) {
  const schema = clusters.defaultCluster.nb.cache.schema?.tables.Logical_Switch;
  if (schema === undefined) throw new Error("no schema");
  return cliTableRows(await ovn.nbctl(["--format=json", "list", "Logical_Switch", name]), schema)[0];
}

beforeAll(async () => {
  ovn = await services.ovn();
  stateDir = mkdtempSync(join(tmpdir(), "svc-netview-history-"));
  await ovn.nbctl(["ls-add", "nvh-kept", "--", "ls-add", "nvh-changed", "--", "ls-add", "nvh-removed"]);
}, 60_000);

afterAll(async () => {
  if (stateDir !== "") rmSync(stateDir, { recursive: true, force: true });
  for (const name of ["nvh-kept", "nvh-changed", "nvh-removed", "nvh-added"])
    await ovn?.nbctl(["--if-exists", "ls-del", name]);
});

describe("History with a state directory", () => {
  test("what changed while netview was stopped comes out of the next start, marked resync", async () => {
    const first = await startHistory(true);
    await ovn.nbctl(["set", "Logical_Switch", "nvh-kept", "external_ids:seen=live"]);
    await eventually(() => expect(first.switches().map((e) => e.op)).toEqual(["update"]));
    const lastSeq = first.history.feed.lastSeq;
    first.stop();

    await ovn.nbctl(["ls-add", "nvh-added"]);
    await ovn.nbctl([
      "set",
      "Logical_Switch",
      "nvh-changed",
      "external_ids:while=down",
      "--",
      "ls-del",
      "nvh-removed",
    ]);

    const second = await startHistory(true);
    try {
      await eventually(() => expect(second.switches().length).toBe(3));
      const byName = (name: string) => second.switches().find((e) => (e.new ?? e.old)?.name === name);
      expect(second.switches().every((e) => e.resync && !e.coalesced)).toBe(true);
      expect(
        second
          .switches()
          .map((e) => e.seq)
          .sort(),
      ).toEqual([lastSeq + 1, lastSeq + 2, lastSeq + 3].sort());
      expect(byName("nvh-added")).toMatchObject({
        op: "insert",
        old: null,
        new: await listed(second.clusters, "nvh-added"),
      });
      expect(byName("nvh-changed")).toMatchObject({
        op: "update",
        old: { external_ids: {} },
        new: await listed(second.clusters, "nvh-changed"),
      });
      expect(byName("nvh-removed")).toMatchObject({ op: "delete", new: null, old: { name: "nvh-removed" } });
      // The same events are in the store, and the first sync is nothing more.
      const stored = second.history.store
        .query({ since: lastSeq, limit: 1000 })
        .map((e) => JSON.parse(e.json));
      expect(stored.filter((e) => String((e.new ?? e.old)?.name).startsWith("nvh-"))).toEqual(
        second.switches(),
      );
    } finally {
      second.stop();
    }

    // Nothing changed while stopped: nothing recorded.
    const third = await startHistory(true);
    try {
      await Bun.sleep(300);
      expect(third.switches()).toEqual([]);
      await ovn.nbctl(["ls-del", "nvh-added"]);
      await eventually(() =>
        expect(third.switches().map((e) => [e.op, e.resync])).toEqual([["delete", false]]),
      );
    } finally {
      third.stop();
    }
  }, 90_000);

  test("without a state directory, a start records only what comes after it", async () => {
    const run = await startHistory(false);
    try {
      await Bun.sleep(300);
      expect(run.switches()).toEqual([]);
    } finally {
      run.stop();
    }
  });
});
