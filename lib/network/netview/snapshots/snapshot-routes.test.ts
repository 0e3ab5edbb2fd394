// Snapshots against the harness's OVN through the API: a snapshot diffed against live after
// ovn-nbctl changes shows exactly those changes (and the SB's own, as ovn-sbctl shows them); loaded,
// it answers as it was with the stale header and /readyz 503; unloaded, the cluster is live again and
// what changed meanwhile is recorded. Export, import, retention and every refusal.
import { beforeAll, describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { type Answer, send } from "../../../../harness/netview/send.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import { compare } from "../../../foundation/collections/compare.ts";
import { cliTableRows } from "../../ovsdb/cli-table.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { TableDiff } from "../../ovsdb/row-diff.ts";
import type { ChangeEvent } from "../history/change-event.ts";
import type { SnapshotDiff } from "./snapshot-diff.ts";
import type { SnapshotDocument } from "./snapshot-document.ts";

const fx = routeTestForFile({
  prepare: (ovn) =>
    ovn.nbctl([
      "ls-add",
      "nvs-sw0",
      "--",
      "lsp-add",
      "nvs-sw0",
      "nvs-p0",
      "--",
      "lsp-add",
      "nvs-sw0",
      "nvs-p1",
    ]),
  opsOptions: { snapshotsMax: 3 },
  cleanup: async (ovn) => {
    for (const name of ["nvs-sw0", "nvs-sw1", "nvs-sw2"]) await ovn.nbctl(["--if-exists", "ls-del", name]);
  },
});

const call = (method: string, path: string, body?: unknown) =>
  send(fx().app, method, path, { body }) as Promise<Answer<Record<string, unknown> & unknown[]>>;

const names = (rows: unknown) => (rows as Row[]).map((r) => r.name).sort();
const byUuid = (a: Row, b: Row) => compare(a._uuid, b._uuid);

beforeAll(async () => {
  await eventually(async () => expect((await call("GET", "/readyz")).status).toBe(200));
}, 60_000);

describe("snapshots", () => {
  let taken = "";

  test("taken, the topology changed: the diff against live shows exactly the changes", async () => {
    const created = await call("POST", "/api/v1/snapshots", { label: "before" });
    expect(created.status).toBe(201);
    taken = String(created.body.id);
    expect(created.body).toMatchObject({
      label: "before",
      cluster: "default",
      source: "live",
      stale: false,
      loaded_on: null,
    });
    const lsCount = fx().clusters.defaultCluster.nb.cache.count("Logical_Switch");
    expect(
      (created.body.databases as Record<string, { tables: Record<string, number> }>).nb?.tables
        .Logical_Switch,
    ).toBe(lsCount);

    await fx().ovn.nbctl(["ls-add", "nvs-sw1"]);
    await fx().ovn.nbctl(["lsp-del", "nvs-p1"]);
    await fx().ovn.nbctl(["set", "Logical_Switch", "nvs-sw0", "other_config:subnet=10.8.0.0/24"]);
    await fx().ovn.nbctl(["--wait=sb", "sync"]);
    // The cache must hold the sync's counters too, not only the new switch: they arrive in an update of their own.
    const sbCfg = Number((await fx().ovn.nbctl(["get", "NB_Global", ".", "sb_cfg"])).trim());
    await eventually(() => {
      expect(
        fx()
          .clusters.defaultCluster.nb.cache.rows("Logical_Switch")
          .some((r) => r.name === "nvs-sw1"),
      ).toBe(true);
      expect(fx().clusters.defaultCluster.nb.cache.rows("NB_Global")[0]?.sb_cfg).toBe(sbCfg);
    });

    const diff = (await call("GET", `/api/v1/snapshots/diff?from=${taken}&to=live&database=nb`))
      .body as unknown as SnapshotDiff;
    const nb = diff.databases.nb;
    expect(Object.keys(nb).sort()).toEqual(["Logical_Switch", "Logical_Switch_Port", "NB_Global"]);
    const ls = nb.Logical_Switch as TableDiff;
    expect(names(ls.inserted)).toEqual(["nvs-sw1"]);
    expect(ls.deleted).toEqual([]);
    expect(ls.updated.map((u) => [u.new.name, Object.keys(u.old).sort()])).toEqual([
      ["nvs-sw0", ["other_config", "ports"]],
    ]);
    expect(names((nb.Logical_Switch_Port as TableDiff).deleted)).toEqual(["nvs-p1"]);
    expect((nb.Logical_Switch_Port as TableDiff).inserted).toEqual([]);
    // NB_Global: only the configuration counters moved (the --wait=sb), with their timestamps.
    const counters = [
      "nb_cfg",
      "nb_cfg_timestamp",
      "sb_cfg",
      "sb_cfg_timestamp",
      "hv_cfg",
      "hv_cfg_timestamp",
    ];
    const moved = Object.keys((nb.NB_Global as TableDiff).updated[0]?.old ?? {});
    expect(moved).toContain("nb_cfg");
    expect(moved.filter((c) => !counters.includes(c))).toEqual([]);
    expect(diff.from).toEqual({ snapshot: taken });
    expect(diff.to).toEqual({ live: "default" });

    // The SB side, checked against ovn-sbctl: the snapshot's rows with the diff applied are the SB's.
    const full = (await call("GET", `/api/v1/snapshots/diff?from=${taken}`)).body as unknown as SnapshotDiff;
    const document = (await call("GET", `/api/v1/snapshots/${taken}/export`))
      .body as unknown as SnapshotDocument;
    expect(Object.keys(full.databases.sb)).toContain("Datapath_Binding");
    for (const [table, tableDiff] of Object.entries(full.databases.sb)) {
      const schema = fx().clusters.defaultCluster.sb.cache.schema?.tables[table];
      if (schema === undefined) throw new Error(table);
      const rows = new Map((document.databases.sb.tables[table] ?? []).map((r) => [r._uuid, r]));
      for (const r of tableDiff.deleted) rows.delete(r._uuid);
      for (const r of [...tableDiff.inserted, ...tableDiff.updated.map((u) => u.new)]) rows.set(r._uuid, r);
      const cli = cliTableRows(await fx().ovn.sbctl(["--format=json", "list", table]), schema).sort(byUuid);
      // Chassis_Private timestamps move on their own; the rest must agree exactly.
      if (table === "Chassis_Private") continue;
      expect([...rows.values()].sort(byUuid)).toEqual(cli);
    }
  }, 60_000);

  test("loaded, it answers as it was, stale, /readyz 503; unloaded, live again with the changes made meanwhile", async () => {
    const loaded = await call("POST", `/api/v1/snapshots/${taken}/load`);
    expect(loaded.body).toMatchObject({ snapshot: taken, cluster: "default" });
    const during = await call("GET", "/api/v1/nb/logical-switches");
    expect(during.stale).toBe(true);
    expect(names(during.body)).toContain("nvs-sw0");
    expect(names(during.body)).not.toContain("nvs-sw1");
    const sw0 = (during.body as Row[]).find((r) => r.name === "nvs-sw0");
    expect(sw0?.other_config).toEqual({});
    expect(
      ((await call("GET", "/api/v1/nb/logical-switch-ports")).body as Row[]).map((r) => r.name),
    ).toContain("nvs-p1");
    expect((await call("GET", "/readyz")).status).toBe(503);
    expect((await call("GET", "/api/v1/clusters/default")).body).toMatchObject({ stale: true, ready: false });
    expect((await call("GET", `/api/v1/snapshots/${taken}`)).body.loaded_on).toBe("default");

    // While loaded: no events, refusals for what needs live rows or a second load.
    const seqBefore = fx().ops.history.store.last().seq;
    await fx().ovn.nbctl(["ls-add", "nvs-sw2"]);
    expect((await call("POST", `/api/v1/snapshots/${taken}/load`)).status).toBe(409);
    expect((await call("DELETE", `/api/v1/snapshots/${taken}`)).status).toBe(409);
    expect((await call("POST", "/api/v1/snapshots", {})).status).toBe(409);
    expect((await call("GET", `/api/v1/snapshots/diff?from=${taken}`)).status).toBe(409);
    await Bun.sleep(300);
    expect(fx().ops.history.store.last().seq).toBe(seqBefore);
    expect(names((await call("GET", "/api/v1/nb/logical-switches")).body)).not.toContain("nvs-sw2");

    expect((await call("POST", `/api/v1/snapshots/${taken}/unload`)).body).toMatchObject({ live: true });
    await eventually(async () =>
      expect((await call("GET", "/api/v1/nb/logical-switches")).stale).toBe(false),
    );
    const after = await call("GET", "/api/v1/nb/logical-switches");
    expect(names(after.body)).toEqual(expect.arrayContaining(["nvs-sw0", "nvs-sw1", "nvs-sw2"]));
    expect((await call("GET", "/readyz")).status).toBe(200);
    // Only what really changed while loaded comes out of the resync, marked as such.
    const events = (await call("GET", `/api/v1/events?since=${seqBefore}&database=nb&table=Logical_Switch`))
      .body.events as unknown as ChangeEvent[];
    expect(events.map((e) => [e.op, e.new?.name, e.resync])).toEqual([["insert", "nvs-sw2", true]]);
    expect((await call("POST", `/api/v1/snapshots/${taken}/unload`)).status).toBe(409);
  }, 60_000);

  test("export and import: the imported copy diffs empty against the original; rows by table", async () => {
    const exported = await call("GET", `/api/v1/snapshots/${taken}/export`);
    expect(exported.headers.get("content-disposition")).toContain(`netview-snapshot-${taken}.json`);
    const imported = await call("POST", "/api/v1/snapshots/import", exported.body);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ source: "import", label: "before" });
    expect(imported.body.id).not.toBe(taken);
    const diff = (await call("GET", `/api/v1/snapshots/diff?from=${taken}&to=${imported.body.id}`))
      .body as unknown as SnapshotDiff;
    expect(diff.summary).toEqual({ inserted: 0, deleted: 0, updated: 0 });
    const rows = await call("GET", `/api/v1/snapshots/${taken}/rows?database=nb&table=logical-switch-ports`);
    expect(names(rows.body)).toEqual(expect.arrayContaining(["nvs-p0", "nvs-p1"]));
    const same = await call("GET", `/api/v1/snapshots/${taken}/rows?database=nb&table=Logical_Switch_Port`);
    expect(same.body).toEqual(rows.body);
    expect(((await call("GET", "/api/v1/snapshots")).body as { id: string }[]).map((s) => s.id)).toEqual([
      String(imported.body.id),
      taken,
    ]);
  }, 60_000);

  test("refusals: unknown ids, bad bodies and queries, another schema", async () => {
    const unknown = "00000000-0000-0000-0000-000000000000";
    expect(await call("GET", `/api/v1/snapshots/${unknown}`)).toMatchObject({
      status: 404,
      body: { error: "not found" },
    });
    expect((await call("POST", `/api/v1/snapshots/${unknown}/load`)).status).toBe(404);
    expect((await call("DELETE", `/api/v1/snapshots/${unknown}`)).status).toBe(404);
    expect((await call("POST", "/api/v1/snapshots", { label: 7, extra: 1 })).body.error).toBe(
      "invalid body: extra: not a member; label: must be a string of at most 200 characters",
    );
    expect((await call("POST", "/api/v1/snapshots", { cluster: "west" })).status).toBe(404);
    expect((await call("GET", `/api/v1/snapshots/${taken}/rows?database=nb`)).status).toBe(400);
    expect((await call("GET", `/api/v1/snapshots/${taken}/rows?database=xx&table=ACL`)).status).toBe(400);
    expect((await call("GET", `/api/v1/snapshots/${taken}/rows?database=nb&table=Nope`)).status).toBe(404);
    expect((await call("GET", "/api/v1/snapshots/diff?from=live&to=live")).status).toBe(400);
    expect((await call("GET", "/api/v1/snapshots/diff")).status).toBe(400);
    expect((await call("POST", "/api/v1/snapshots/import", "not json")).status).toBe(400);
    const bad = await call("POST", "/api/v1/snapshots/import", {
      format: "x",
      databases: { nb: { schema: {}, tables: { T: [{ _uuid: "X" }] } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("format: must be");
    expect(bad.body.error).toContain("databases.sb: missing");
    expect(bad.body.error).toContain("databases.nb.tables.T[0]: must be a row with a lower-case _uuid");
    // Another schema version can be imported and read, not loaded.
    const document = (await call("GET", `/api/v1/snapshots/${taken}/export`))
      .body as unknown as SnapshotDocument;
    document.databases.nb.schema.version = "0.0.1";
    const other = await call("POST", "/api/v1/snapshots/import", document);
    const refused = await call("POST", `/api/v1/snapshots/${other.body.id}/load`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("it can be read and diffed, not loaded");
    expect((await call("GET", "/readyz")).status).toBe(200);
  }, 60_000);

  test("retention: beyond --snapshots-max the oldest go, never a loaded one", async () => {
    const ids = ((await call("GET", "/api/v1/snapshots")).body as { id: string }[]).map((s) => s.id);
    expect(ids.length).toBe(3);
    const oldest = ids[ids.length - 1] as string;
    expect((await call("POST", `/api/v1/snapshots/${oldest}/load`)).status).toBe(200);
    await call("POST", `/api/v1/snapshots/${oldest}/unload`);
    await eventually(async () => expect((await call("GET", "/readyz")).status).toBe(200));
    await call("POST", `/api/v1/snapshots/${oldest}/load`);
    try {
      // Loaded: taking one is refused, but importing one evicts the oldest not loaded.
      const document = (await call("GET", `/api/v1/snapshots/${oldest}/export`)).body;
      const added = await call("POST", "/api/v1/snapshots/import", document);
      expect(added.body.evicted).toEqual([ids[1]]);
    } finally {
      await call("POST", `/api/v1/snapshots/${oldest}/unload`);
    }
    const after = ((await call("GET", "/api/v1/snapshots")).body as { id: string }[]).map((s) => s.id);
    expect(after).toContain(oldest);
    expect(after).not.toContain(ids[1] as string);
  }, 60_000);
});
