import { describe, expect, test } from "bun:test";
import type { Row } from "../../ovsdb/datum.ts";
import { FlowChangeLog, flowChangesOf } from "./flow-changes.ts";

const flow = (uuid: string, actions: string, dp = "dp-1"): Row => ({
  _uuid: uuid,
  logical_datapath: dp,
  logical_dp_group: null,
  pipeline: "ingress",
  table_id: 9,
  priority: 100,
  match: "ip4",
  actions,
  external_ids: { "stage-name": "ls_in_acl" },
});
const datapath: Row = { _uuid: "dp-1", external_ids: { name: "sw0" }, tunnel_key: 1 };
const cache = {
  get: (table: string, uuid: string) =>
    table === "Datapath_Binding" && uuid === "dp-1" ? datapath : undefined,
};

describe("flow changes", () => {
  test("inserts, deletes and modifications, a deleted datapath named from the same batch", () => {
    const gone: Row = { _uuid: "dp-2", external_ids: { name: "sw-gone" }, tunnel_key: 2 };
    const changes = flowChangesOf(
      [
        { table: "Logical_Flow", uuid: "f1", old: undefined, new: flow("f1", "next;") },
        { table: "Logical_Flow", uuid: "f2", old: flow("f2", "next;"), new: flow("f2", "drop;") },
        { table: "Logical_Flow", uuid: "f3", old: flow("f3", "next;", "dp-2"), new: undefined },
        { table: "Datapath_Binding", uuid: "dp-2", old: gone, new: undefined },
        { table: "Port_Binding", uuid: "p", old: undefined, new: { _uuid: "p" } },
      ],
      cache,
    );
    expect(
      changes.map((c) => [c.change, c.uuid, c.datapaths[0]?.name, c.actions, c.before?.actions ?? null]),
    ).toEqual([
      ["added", "f1", "sw0", "next;", null],
      ["modified", "f2", "sw0", "drop;", "next;"],
      ["removed", "f3", "sw-gone", "next;", null],
    ]);
  });

  test("a bounded ring: the oldest go first and are counted; newest first, since and filters", () => {
    const log = new FlowChangeLog(3, () => 0);
    const batch = (uuids: string[]) =>
      flowChangesOf(
        uuids.map((u) => ({ table: "Logical_Flow", uuid: u, old: undefined, new: flow(u, "next;") })),
        cache,
      );
    log.add("c", batch(["a", "b"]), { resync: false, coalesced: false });
    log.add("c", batch(["c", "d"]), { resync: false, coalesced: false });
    log.add("other", batch(["x"]), { resync: false, coalesced: false });
    const all = log.list({ cluster: "c", limit: 10 });
    expect([all.kept, all.dropped, all.last_seq, all.oldest_seq]).toEqual([3, 2, 5, 3]);
    expect(all.changes.map((c) => [c.seq, c.txn, c.uuid])).toEqual([
      [4, 2, "d"],
      [3, 2, "c"],
    ]);
    expect(log.list({ cluster: "c", limit: 1 })).toMatchObject({ truncated: true, changes: [{ uuid: "d" }] });
    expect(log.list({ cluster: "c", limit: 10, since: 3 }).changes.map((c) => c.uuid)).toEqual(["d"]);
    expect(log.list({ cluster: "c", limit: 10, datapaths: new Set(["dp-9"]) }).changes).toEqual([]);
  });
});
