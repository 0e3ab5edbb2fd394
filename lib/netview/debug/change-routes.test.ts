// Issue 16's change questions over the debug topology on the harness's OVN: the recent logical-flow
// changes as an ACL is added and removed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../test-support.ts";
import { type DebugFixture, startDebugFixture } from "./debug-fixture.ts";
import type { FlowChange } from "./flow-changes.ts";

let fx: DebugFixture;

beforeAll(async () => {
  fx = await startDebugFixture();
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

type Diff = { last_seq: number; dropped: number; changes: FlowChange[] };
const json = async <T>(path: string): Promise<T> => {
  const res = await fx.get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body as T;
};

describe("flow diff", () => {
  test("an ACL added and removed: its flows appear, then go", async () => {
    const start = (await json<Diff>("/api/v1/debug/flow-diff?limit=1")).last_seq;
    const match = "ip4.dst == 10.0.0.99";
    await fx.ovn.nbctl(["acl-add", "dbg-sw0", "to-lport", "1234", match, "drop"]);
    await fx.caughtUp();
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
    await fx.ovn.nbctl(["acl-del", "dbg-sw0", "to-lport", "1234", match]);
    await fx.caughtUp();
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
      expect((await fx.get(`/api/v1/debug/flow-diff?${q}`)).status).toBe(400);
  });
});
