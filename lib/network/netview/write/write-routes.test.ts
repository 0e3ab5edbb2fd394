// Guarded writes against the harness's OVN: refused without --write-enabled (403) and without the
// token (401); a failover plan applied moves the gateway as ovn-nbctl then shows; a plan made stale
// by a concurrent ovn-nbctl change is refused by the server's own check; preview and dry-run differ
// where only the server can tell; rollback and restore put rows back under their own uuids; every
// apply is in the audit with who, when, what and the result.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { type Answer, type NetviewApp, send } from "../../../../harness/netview/send.ts";
import {
  eventually,
  testApp,
  testOpsOptions,
  testWriteToken as token,
} from "../../../../harness/netview/test-support.ts";
import { cliTableRows } from "../../ovsdb/cli-table.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { buildOps, type NetviewOps } from "../netview-ops.ts";
import type { AuditEntry } from "./audit-store.ts";
import type { Plan } from "./plan.ts";

let readOnly: NetviewOps;
let readOnlyApp: NetviewApp;
let skewMs = 0;
let c1 = "";
let c2 = "";

const call = (
  method: string,
  path: string,
  body?: unknown,
  options: { auth?: string | null; on?: NetviewApp } = {},
) =>
  send(options.on ?? fx().app, method, path, {
    body,
    ...(options.auth === undefined ? {} : { auth: options.auth }),
  }) as Promise<Answer<Record<string, unknown>>>;

const plan = (a: Answer) => a.body as unknown as Plan;
const gatewayChassis = async (lrp: string) =>
  (await fx().ovn.nbctl(["lrp-get-gateway-chassis", lrp]))
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));

const fx = routeTestForFile({
  prepare: async (ovn) => {
    c1 = ovn.chassis[0]?.systemId as string;
    c2 = ovn.chassis[1]?.systemId as string;
    await ovn.nbctl([
      "lr-add",
      "nvx-lr0",
      "--",
      "lrp-add",
      "nvx-lr0",
      "nvx-lrp0",
      "00:00:00:00:fe:01",
      "172.31.0.1/24",
    ]);
    await ovn.nbctl(["lrp-set-gateway-chassis", "nvx-lrp0", c1, "20"]);
    await ovn.nbctl(["lrp-set-gateway-chassis", "nvx-lrp0", c2, "10"]);
    await ovn.nbctl([
      "ls-add",
      "nvx-sw0",
      "--",
      "lsp-add",
      "nvx-sw0",
      "nvx-p0",
      "--",
      "lsp-add",
      "nvx-sw0",
      "nvx-p1",
    ]);
    await ovn.nbctl(["acl-add", "nvx-sw0", "to-lport", "1001", "ip4.src == 10.66.0.1", "drop"]);
  },
  ops: { now: () => Date.now() + skewMs, planTtlMs: 60_000 },
  opsOptions: { writeEnabled: true },
  settings: { writeEnabled: true },
  cleanup: async (ovn) => {
    await ovn.nbctl(["--if-exists", "lr-del", "nvx-lr0"]);
    for (const ls of ["nvx-sw0", "nvx-sw1", "nvx-new"]) await ovn.nbctl(["--if-exists", "ls-del", ls]);
  },
});

beforeAll(async () => {
  const { ovn, clusters } = fx();
  readOnly = buildOps({ options: testOpsOptions(ovn), clusters });
  readOnlyApp = testApp({ clusters, ops: readOnly });
  await eventually(() =>
    expect(
      clusters.defaultCluster.nb.cache
        .rows("Gateway_Chassis")
        .filter((r) => String(r.name).startsWith("nvx-lrp0")).length,
    ).toBe(2),
  );
}, 60_000);

afterAll(() => readOnly?.stop());

const routes: [string, string][] = [
  ["GET", "/api/v1/write/schema"],
  ["POST", "/api/v1/write/preview"],
  ["POST", "/api/v1/write/dry-run"],
  ["GET", "/api/v1/write/plans/x"],
  ["POST", "/api/v1/write/plans/x/apply"],
  ["DELETE", "/api/v1/write/plans/x"],
  ["POST", "/api/v1/write/failover"],
  ["POST", "/api/v1/write/evacuate"],
  ["POST", "/api/v1/write/rollback"],
  ["POST", "/api/v1/write/restore"],
  ["GET", "/api/v1/write/audit"],
  ["GET", "/api/v1/write/audit/1"],
];

describe("access", () => {
  test("without --write-enabled every write route is refused, token or not", async () => {
    for (const [method, path] of routes) {
      const answer = await call(method, path, method === "GET" ? undefined : {}, { on: readOnlyApp });
      expect([method, path, answer.status, answer.body.error]).toEqual([
        method,
        path,
        403,
        "write routes are disabled: the server runs without --write-enabled",
      ]);
    }
  });

  test("with it, no token or another token is 401 on every route, and nothing is audited", async () => {
    for (const [method, path] of routes) {
      for (const auth of [null, "x".repeat(48), `${token}x`]) {
        const answer = await call(method, path, method === "GET" ? undefined : {}, { auth });
        expect([method, path, answer.status]).toEqual([method, path, 401]);
        expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="netview-write"');
        expect(JSON.stringify(answer.body)).not.toContain(token);
      }
    }
    expect(((await call("GET", "/api/v1/write/audit")).body as unknown as unknown[]).length).toBe(0);
  });

  test("the schema says what can be changed", async () => {
    const schema = (await call("GET", "/api/v1/write/schema")).body as {
      database: { name: string };
      tables: Record<string, { columns: Record<string, { kind: string; ref_table?: string }> }>;
    };
    expect(schema.database.name).toBe("OVN_Northbound");
    expect(schema.tables.Logical_Switch?.columns.ports).toMatchObject({
      kind: "set",
      ref_table: "Logical_Switch_Port",
    });
  });
});

describe("failover", () => {
  let applied = "";

  test("a failover plan applied moves the gateway to the next chassis, as ovn-nbctl then shows", async () => {
    expect((await gatewayChassis("nvx-lrp0")).map(([name]) => name)).toEqual([
      `nvx-lrp0-${c1}`,
      `nvx-lrp0-${c2}`,
    ]);
    const prepared = await call("POST", "/api/v1/write/failover", { router_port: "nvx-lrp0" });
    expect(prepared.status).toBe(201);
    expect(plan(prepared)).toMatchObject({
      kind: "failover",
      state: "prepared",
      created_by: "alice@ops",
      description: `failover of nvx-lrp0 from ${c1} to ${c2}`,
    });
    expect(
      plan(prepared).effect.Gateway_Chassis?.updated.map((u) => [
        u.new.chassis_name,
        u.old.priority,
        u.new.priority,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [c1, 20, 10],
        [c2, 10, 20],
      ]),
    );
    // Nothing is applied by preparing.
    expect((await gatewayChassis("nvx-lrp0"))[0]?.[0]).toBe(`nvx-lrp0-${c1}`);
    const done = await call("POST", `/api/v1/write/plans/${plan(prepared).id}/apply`);
    expect(done.status).toBe(200);
    expect(plan(done).state).toBe("applied");
    applied = plan(done).id;
    expect(await gatewayChassis("nvx-lrp0")).toEqual([
      [`nvx-lrp0-${c2}`, "20"],
      [`nvx-lrp0-${c1}`, "10"],
    ]);
    expect((await call("POST", `/api/v1/write/plans/${applied}/apply`)).status).toBe(409);
    expect(plan(await call("GET", `/api/v1/write/plans/${applied}`)).result?.changes.length).toBe(2);
  }, 60_000);

  test("a plan made stale by a concurrent change is refused, and nothing of it is applied", async () => {
    const prepared = plan(await call("POST", "/api/v1/write/failover", { router_port: "nvx-lrp0" }));
    await fx().ovn.nbctl(["lrp-set-gateway-chassis", "nvx-lrp0", c1, "11"]);
    const refused = await call("POST", `/api/v1/write/plans/${prepared.id}/apply`);
    expect(refused.status).toBe(409);
    expect(String(refused.body.error)).toContain(`plan ${prepared.id} is stale`);
    expect(plan(await call("GET", `/api/v1/write/plans/${prepared.id}`)).state).toBe("stale");
    expect(await gatewayChassis("nvx-lrp0")).toEqual([
      [`nvx-lrp0-${c2}`, "20"],
      [`nvx-lrp0-${c1}`, "11"],
    ]);
    await fx().ovn.nbctl(["lrp-set-gateway-chassis", "nvx-lrp0", c1, "10"]);
  }, 60_000);

  test("rollback puts the priorities back; evacuate moves every gateway off a chassis", async () => {
    await eventually(() =>
      expect(
        fx()
          .clusters.defaultCluster.nb.cache.rows("Gateway_Chassis")
          .find((r) => r.chassis_name === c1 && String(r.name).startsWith("nvx"))?.priority,
      ).toBe(10),
    );
    const back = plan(await call("POST", "/api/v1/write/rollback", { plan: applied }));
    expect(back.source).toEqual({ plan: applied });
    expect((await call("POST", `/api/v1/write/plans/${back.id}/apply`)).status).toBe(200);
    expect((await gatewayChassis("nvx-lrp0")).map(([n]) => n)).toEqual([`nvx-lrp0-${c1}`, `nvx-lrp0-${c2}`]);
    const evacuate = await call("POST", "/api/v1/write/evacuate", { chassis: c1 });
    expect(evacuate.status).toBe(201);
    expect(plan(evacuate).description).toContain(`nvx-lrp0 to ${c2}`);
    expect((await call("POST", `/api/v1/write/plans/${plan(evacuate).id}/apply`)).status).toBe(200);
    expect((await gatewayChassis("nvx-lrp0"))[0]?.[0]).toBe(`nvx-lrp0-${c2}`);
    expect(
      (await call("POST", "/api/v1/write/failover", { router_port: "nvx-lrp0", to_chassis: c2 })).status,
    ).toBe(409);
    expect((await call("POST", "/api/v1/write/failover", { router_port: "nope" })).status).toBe(404);
  }, 60_000);
});

describe("preview, dry-run, cancel, expiry", () => {
  test("row operations: preview predicts, apply inserts with references between new rows", async () => {
    const prepared = await call("POST", "/api/v1/write/preview", {
      description: "a switch with a port",
      operations: [
        {
          op: "insert",
          table: "Logical_Switch_Port",
          ref: "p",
          row: { name: "nvx-new-p0", addresses: ["00:00:00:00:aa:01"] },
        },
        { op: "insert", table: "Logical_Switch", row: { name: "nvx-new", ports: ["@p"] } },
        {
          op: "update",
          table: "Logical_Switch",
          name: "nvx-sw0",
          set: { other_config: { subnet: "10.66.0.0/24" } },
        },
      ],
    });
    expect(prepared.status).toBe(201);
    const p = plan(prepared);
    expect(p.effect.Logical_Switch?.inserted[0]).toMatchObject({ name: "nvx-new", ports: ["@p"] });
    expect(p.effect.Logical_Switch?.updated[0]?.old).toEqual({ other_config: {} });
    const done = plan(await call("POST", `/api/v1/write/plans/${p.id}/apply`));
    expect(Object.keys(done.result?.inserted ?? {}).sort()).toEqual(["insert-1", "p"]);
    expect((await fx().ovn.nbctl(["lsp-list", "nvx-new"])).trim()).toContain("nvx-new-p0");
    expect((await fx().ovn.nbctl(["get", "Logical_Switch", "nvx-sw0", "other_config:subnet"])).trim()).toBe(
      '"10.66.0.0/24"',
    );
  }, 60_000);

  test("dry-run runs the operations on the server and rolls them back; references are checked by a commit only", async () => {
    const acl = fx()
      .clusters.defaultCluster.nb.cache.rows("ACL")
      .find((r) => r.match === "ip4.src == 10.66.0.1") as Row;
    const ok = await call("POST", "/api/v1/write/dry-run", {
      operations: [{ op: "update", table: "ACL", uuid: acl._uuid, set: { action: "allow" } }],
    });
    expect(plan(ok)).toMatchObject({ kind: "dry-run", server_checked: true, state: "prepared" });
    expect((await fx().ovn.nbctl(["get", "ACL", acl._uuid, "action"])).trim()).toBe("drop");
    // The switch still refers to the ACL (a strong reference): the aborted transaction never gets
    // as far as the check, the commit of apply does.
    const body = { operations: [{ op: "delete", table: "ACL", uuid: acl._uuid }] };
    expect((await call("POST", "/api/v1/write/preview", body)).status).toBe(201);
    const dry = await call("POST", "/api/v1/write/dry-run", body);
    expect(dry.status).toBe(201);
    const applied = await call("POST", `/api/v1/write/plans/${plan(dry).id}/apply`);
    expect(applied.status).toBe(422);
    expect(String(applied.body.error)).toContain("referential integrity violation");
    expect(plan(await call("GET", `/api/v1/write/plans/${plan(dry).id}`)).state).toBe("failed");
    expect((await fx().ovn.nbctl(["get", "ACL", acl._uuid, "action"])).trim()).toBe("drop");
  }, 60_000);

  test("bad operations are one 400 naming each problem", async () => {
    const answer = await call("POST", "/api/v1/write/preview", {
      operations: [
        { op: "update", table: "Logical_Switch", name: "nvx-sw0", set: { ports: ["not-a-uuid"], nope: 1 } },
        { op: "insert", table: "Nope", row: {} },
        { op: "insert", table: "Logical_Switch", row: { ports: ["@missing"] } },
        { op: "drop", table: "ACL" },
      ],
    });
    expect(answer.status).toBe(400);
    const error = String(answer.body.error);
    for (const part of [
      'operations[0].set.ports[0]: "not-a-uuid" is not a uuid',
      "operations[0].set.nope: Logical_Switch has no such column",
      "operations[1].table: not a table of OVN_Northbound",
      "operations[2].row.ports[0]: @missing names no row inserted before it in this plan",
      "operations[3].op: must be insert, update or delete",
    ]) {
      expect(error).toContain(part);
    }
    expect((await call("POST", "/api/v1/write/preview", { operations: [] })).status).toBe(400);
    expect((await call("POST", "/api/v1/write/plans/nope/apply")).status).toBe(404);
  });

  test("a cancelled or expired plan is not applied", async () => {
    const body = {
      operations: [
        { op: "update", table: "Logical_Switch", name: "nvx-sw0", set: { external_ids: { k: "v" } } },
      ],
    };
    const cancelled = plan(await call("POST", "/api/v1/write/preview", body));
    expect(plan(await call("DELETE", `/api/v1/write/plans/${cancelled.id}`)).state).toBe("cancelled");
    expect((await call("POST", `/api/v1/write/plans/${cancelled.id}/apply`)).status).toBe(409);
    const expired = plan(await call("POST", "/api/v1/write/preview", body));
    skewMs = 61_000;
    try {
      expect(plan(await call("GET", `/api/v1/write/plans/${expired.id}`)).state).toBe("expired");
      expect((await call("POST", `/api/v1/write/plans/${expired.id}/apply`)).status).toBe(409);
    } finally {
      skewMs = 0;
    }
    expect((await fx().ovn.nbctl(["get", "Logical_Switch", "nvx-sw0", "external_ids"])).trim()).toBe("{}");
  });
});

describe("restore", () => {
  test("a switch deleted and one changed since a snapshot come back as they were, under their own uuids", async () => {
    const schema = fx().clusters.defaultCluster.nb.cache.schema;
    if (schema === undefined) throw new Error("schema");
    const list = async (table: string, name: string) =>
      cliTableRows(
        await fx().ovn.nbctl(["--format=json", "list", table, name]),
        schema.tables[table] as never,
      );
    const sw1Before = await (async () => {
      await fx().ovn.nbctl(["ls-add", "nvx-sw1", "--", "lsp-add", "nvx-sw1", "nvx-q0"]);
      await eventually(() =>
        expect(
          fx()
            .clusters.defaultCluster.nb.cache.rows("Logical_Switch")
            .some((r) => r.name === "nvx-sw1"),
        ).toBe(true),
      );
      return {
        ls: await list("Logical_Switch", "nvx-sw1"),
        lsp: await list("Logical_Switch_Port", "nvx-q0"),
      };
    })();
    // Quiet first: what earlier tests set going (ports coming up, northd's own writes) has landed.
    await fx().ovn.nbctl(["--wait=hv", "sync"]);
    const settled = Number((await fx().ovn.nbctl(["get", "NB_Global", ".", "hv_cfg"])).trim());
    await eventually(() =>
      expect(fx().clusters.defaultCluster.nb.cache.rows("NB_Global")[0]?.hv_cfg).toBe(settled),
    );
    const sw0Before = await list("Logical_Switch", "nvx-sw0");
    const snapshot = (await call("POST", "/api/v1/snapshots", { label: "before restore test" })).body
      .id as string;
    await fx().ovn.nbctl(["ls-del", "nvx-sw1"]);
    await fx().ovn.nbctl(["set", "Logical_Switch", "nvx-sw0", "other_config:subnet=10.99.0.0/24"]);
    await eventually(() => {
      const switches = fx().clusters.defaultCluster.nb.cache.rows("Logical_Switch");
      expect(switches.some((r) => r.name === "nvx-sw1")).toBe(false);
      expect(switches.find((r) => r.name === "nvx-sw0")?.other_config).toEqual({ subnet: "10.99.0.0/24" });
    });

    const prepared = await call("POST", "/api/v1/write/restore", {
      snapshot,
      tables: ["Logical_Switch", "Logical_Switch_Port"],
    });
    expect(prepared.status).toBe(201);
    const p = plan(prepared);
    expect(p.changes.map((c) => [c.kind, c.table]).sort()).toEqual([
      ["insert", "Logical_Switch"],
      ["insert", "Logical_Switch_Port"],
      ["update", "Logical_Switch"],
    ]);
    expect((await call("POST", `/api/v1/write/plans/${p.id}/apply`)).status).toBe(200);
    expect(await list("Logical_Switch", "nvx-sw1")).toEqual(sw1Before.ls);
    expect(await list("Logical_Switch_Port", "nvx-q0")).toEqual(sw1Before.lsp);
    expect(await list("Logical_Switch", "nvx-sw0")).toEqual(sw0Before);
  }, 60_000);

  test("writes wait while a snapshot is loaded", async () => {
    const snapshot = (await call("POST", "/api/v1/snapshots", {})).body.id as string;
    await call("POST", `/api/v1/snapshots/${snapshot}/load`);
    try {
      const answer = await call("POST", "/api/v1/write/failover", { router_port: "nvx-lrp0" });
      expect([answer.status, answer.body.error]).toEqual([
        409,
        "cluster default answers from a loaded snapshot: unload it first",
      ]);
    } finally {
      await call("POST", `/api/v1/snapshots/${snapshot}/unload`);
    }
    await eventually(() => expect(fx().clusters.defaultCluster.nb.cache.authoritative).toBe(true));
  }, 60_000);
});

describe("audit", () => {
  test("every apply is there: who, when, what, result; plans and cancels too", async () => {
    const entries = (await call("GET", "/api/v1/write/audit?limit=1000")).body as unknown as AuditEntry[];
    const applies = entries.filter((e) => e.action === "apply");
    expect(applies.map((e) => [e.kind, e.result]).reverse()).toEqual([
      ["failover", "applied"],
      ["failover", "stale"],
      ["rollback", "applied"],
      ["evacuate", "applied"],
      ["preview", "applied"],
      ["dry-run", "failed"],
      ["restore", "applied"],
    ]);
    for (const e of applies) {
      expect(e).toMatchObject({ actor: "alice@ops", cluster: "default", remote_addr: null });
      expect(e.token).toMatch(/^[0-9a-f]{12}$/);
      expect(e.finished_at).not.toBeNull();
      expect(e.at <= (e.finished_at as string)).toBe(true);
    }
    expect(entries.some((e) => e.action === "cancel" && e.result === "cancelled")).toBe(true);
    const detail = (await call("GET", `/api/v1/write/audit/${applies[applies.length - 1]?.id}`))
      .body as unknown as AuditEntry;
    expect(detail.changes.length).toBe(2);
    expect(detail.summary).toEqual({ inserted: 0, updated: 2, deleted: 0 });
    expect((await call("GET", "/api/v1/write/audit/999999")).status).toBe(404);
    expect((await call("GET", "/api/v1/write/audit?limit=0")).status).toBe(400);
    const stale = applies.find((e) => e.result === "stale") as AuditEntry;
    expect(stale.error).toContain("has changed since");
  });
});
