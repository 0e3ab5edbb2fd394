// Issue 16's change questions over the debug topology on the harness's OVN: the recent logical-flow
// changes as an ACL is added and removed.
import { describe, expect, test } from "bun:test";
import { startDebugFixture } from "../../../../harness/netview/debug-fixture.ts";
import { eventually, fixtureForFile } from "../../../../harness/netview/test-support.ts";
import type { FlowChange } from "./flow-changes.ts";
import type { Impact } from "./impact.ts";

const fx = fixtureForFile(startDebugFixture);

type Diff = { last_seq: number; dropped: number; changes: FlowChange[] };
const json = async <T>(path: string): Promise<T> => {
  const res = await fx().get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body as T;
};

describe("flow diff", () => {
  test("an ACL added and removed: its flows appear, then go", async () => {
    const start = (await json<Diff>("/api/v1/debug/flow-diff?limit=1")).last_seq;
    const match = "ip4.dst == 10.0.0.99";
    await fx().ovn.nbctl(["acl-add", "dbg-sw0", "to-lport", "1234", match, "drop"]);
    await fx().caughtUp();
    let added: FlowChange[] = [];
    await eventually(async () => {
      added = (
        await json<Diff>(`/api/v1/debug/flow-diff?since=${start}&datapath=dbg-sw0&limit=1000`)
      ).changes.filter((c) => c.match.includes(match));
      expect(added.length).toBeGreaterThan(0);
    });
    expect(added.every((c) => c.change === "added" && c.resync === false)).toBe(true);
    expect(added.map((c) => c.stage)).toContain("ls_out_acl");
    expect(added[0]?.datapaths.map((d) => d.name)).toEqual(["dbg-sw0"]);
    const mid = (await json<Diff>("/api/v1/debug/flow-diff?limit=1")).last_seq;
    await fx().ovn.nbctl(["acl-del", "dbg-sw0", "to-lport", "1234", match]);
    await fx().caughtUp();
    await eventually(async () => {
      const removed = (await json<Diff>(`/api/v1/debug/flow-diff?since=${mid}&change=removed&limit=1000`))
        .changes;
      expect(
        removed
          .filter((c) => c.match.includes(match))
          .map((c) => c.uuid)
          .sort(),
      ).toEqual(added.map((c) => c.uuid).sort());
    });
    expect(
      (await json<Diff>(`/api/v1/clusters/default/debug/flow-diff?since=${mid}&limit=1`)).changes,
    ).toHaveLength(1);
  });

  test("the caller's mistakes are 400", async () => {
    for (const q of ["since=-1", "limit=0", "change=moved", "limit=1001"])
      expect((await fx().get(`/api/v1/debug/flow-diff?${q}`)).status).toBe(400);
  });
});

describe("impact", () => {
  const nbUuid = async (table: string, where: string) =>
    (await fx().ovn.nbctl(["--bare", "--columns=_uuid", "find", table, where])).trim();

  test("a port group: its ACLs and ports, their switch and the chassis hosting them", async () => {
    const pg = await nbUuid("Port_Group", "name=dbg_pg_web");
    const i = await json<Impact>(`/api/v1/impact/nb/port-groups/${pg}`);
    expect(i.entity).toMatchObject({ table: "Port_Group", name: "dbg_pg_web" });
    expect(i.affected).toMatchObject({
      ports: ["dbg-p0", "dbg-p1"],
      switches: ["dbg-sw0"],
      chassis: [fx().ovn.chassis[0]?.systemId],
    });
    expect(i.references.filter((r) => r.column === "acls")).toHaveLength(5);
    expect(
      i.references
        .filter((r) => r.column === "ports")
        .map((r) => r.name)
        .sort(),
    ).toEqual(["dbg-p0", "dbg-p1"]);
  });

  test("an ACL: derived flows by stage-hint; a switch: its router and its datapath's flows; an SB chassis", async () => {
    const acl = await nbUuid("ACL", 'match="ip4.src == 10.1.0.64/26"');
    const a = await json<Impact>(`/api/v1/impact/nb/acls/${acl}`);
    expect(a.referenced_by).toMatchObject([{ table: "Logical_Switch", name: "dbg-sw1", column: "acls" }]);
    expect(a.affected.ports).toEqual(["dbg-q0", "dbg-q1", "dbg-sw1-lr"]);
    expect(a.affected.logical_flows).toBeGreaterThan(0);
    const sw = await json<Impact>(
      `/api/v1/impact/nb/logical-switches/${await nbUuid("Logical_Switch", "name=dbg-sw0")}`,
    );
    expect(sw.affected).toMatchObject({ switches: ["dbg-sw0"], routers: ["dbg-lr0"] });
    const flows = Number(
      (
        await fx().ovn.sbctl([
          "--bare",
          "--columns=_uuid",
          "find",
          "Logical_Flow",
          `logical_datapath=${(await fx().ovn.sbctl(["--bare", "--columns=_uuid", "find", "Datapath_Binding", "external_ids:name=dbg-sw0"])).trim()}`,
        ])
      )
        .split("\n")
        .filter((l) => l.trim() !== "").length,
    );
    expect(sw.affected.logical_flows).toBe(flows);
    const chassis = (
      await fx().ovn.sbctl([
        "--bare",
        "--columns=_uuid",
        "find",
        "Chassis",
        `name=${fx().ovn.chassis[1]?.systemId}`,
      ])
    ).trim();
    const c = await json<Impact>(`/api/v1/impact/sb/chassis/${chassis}`);
    // The OVN sandbox is shared: other test files may have ports bound to this chassis too.
    expect(c.affected.ports).toContain("dbg-q0");
    expect(c.affected.switches).toContain("dbg-sw1");
    expect(c.referenced_by.map((r) => [r.table, r.column])).toContainEqual(["Port_Binding", "chassis"]);
  });

  test("unknown db, table or uuid is 404", async () => {
    for (const path of [
      "xx/acls/x",
      "nb/nope/x",
      "sb/acls/x",
      "nb/acls/00000000-0000-0000-0000-000000000000",
    ]) {
      const res = await fx().get(`/api/v1/impact/${path}`);
      expect([path, res.status, res.body]).toEqual([path, 404, { error: "not found" }]);
    }
  });
});
