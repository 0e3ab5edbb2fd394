// Issue 16's debug audits over the debug topology on the harness's OVN (dbg-p0 bound on the first
// chassis, dbg-q0 on the second), with both chassis switches monitored: port diagnostics as ports are
// unbound and a chassis stopped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DebugFixture, startDebugFixture } from "../../../../harness/netview/debug-fixture.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import type { OvnChassis } from "../../../../harness/services/ovn.ts";
import { services } from "../../../../harness/test-services.ts";
import type { PortDiagnosis, PortDiagnostics } from "./port-diagnostics.ts";

let fx: DebugFixture;
let dir = "";
let chassis1: OvnChassis;
let chassis2: OvnChassis;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-netview-diag-"));
  const ovn = await services.ovn();
  const [one, two] = ovn.chassis;
  if (one === undefined || two === undefined) throw new Error("these tests need the sandbox's two chassis");
  chassis1 = one;
  chassis2 = two;
  const mgmt = join(dir, "mgmt.txt");
  writeFileSync(mgmt, `${one.systemId} ${one.dbRemote}\n${two.systemId} ${two.dbRemote}\n`);
  // A short stale threshold, so that a stopped chassis is down within the test.
  fx = await startDebugFixture({
    clusterArgs: [`--ovs-mgmt-addr-file=${mgmt}`],
    chassisStaleThresholdMs: 3000,
  });
  await eventually(() => {
    for (const m of fx.clusters.defaultCluster.fleet?.members.values() ?? [])
      expect(m.client.cache.authoritative).toBe(true);
  });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

const json = async <T>(path: string): Promise<T> => {
  const res = await fx.get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body as T;
};
const diagnostics = (query = "") => json<PortDiagnostics>(`/api/v1/debug/port-diagnostics${query}`);
const dbg = (d: PortDiagnostics) =>
  Object.fromEntries(
    d.ports
      .filter((p) => p.name.startsWith("dbg-"))
      .map((p) => [p.name, [p.severity, p.issues.map((i) => i.code)]]),
  );
const lspUuid = async (name: string) =>
  (await fx.ovn.nbctl(["--bare", "--columns=_uuid", "find", "Logical_Switch_Port", `name=${name}`])).trim();

describe("port diagnostics", () => {
  test("bound ports are healthy, VIF ports without an interface are unbound, patch and localnet ports need no chassis", async () => {
    await eventually(async () =>
      expect(dbg(await diagnostics("?limit=5000"))).toEqual({
        "dbg-ln": ["healthy", []],
        "dbg-p0": ["healthy", []],
        "dbg-p1": ["error", ["unbound"]],
        "dbg-p2": ["error", ["unbound"]],
        "dbg-pub-lr": ["healthy", []],
        "dbg-q0": ["healthy", []],
        "dbg-q1": ["error", ["unbound"]],
        "dbg-sw0-lr": ["healthy", []],
        "dbg-sw1-lr": ["healthy", []],
      }),
    );
    const all = await diagnostics("?limit=5000");
    const p0 = all.ports.find((p) => p.name === "dbg-p0") as PortDiagnosis;
    expect(p0).toMatchObject({
      switch: { name: "dbg-sw0" },
      enabled: null,
      binding: { chassis: chassis1.systemId, up: true, requested_chassis: [] },
      interfaces: [{ chassis: chassis1.systemId, name: "dbg-p0" }],
    });
    const total = (await fx.ovn.nbctl(["--bare", "--columns=_uuid", "list", "Logical_Switch_Port"]))
      .split("\n")
      .filter((l) => l.trim() !== "").length;
    expect(all.summary.total).toBe(total);
    expect(all.summary.healthy + all.summary.warning + all.summary.error).toBe(total);
    expect(all.stray_interfaces).toEqual([]);
  });

  test("severity and limit narrow the ports; the summary stays the totals", async () => {
    const all = await diagnostics("?limit=5000");
    const errors = await diagnostics("?severity=error&limit=2");
    expect(errors.summary).toEqual(all.summary);
    expect(errors.ports.map((p) => p.severity)).toEqual(["error", "error"]);
    expect(errors.returned).toBe(2);
    expect(errors.truncated).toBe(all.summary.error > 2);
    const healthy = await diagnostics("?severity=healthy&limit=5000");
    expect(healthy.ports.length).toBe(all.summary.healthy);
    expect(healthy.truncated).toBe(false);
    // Worst first, then by name.
    const names = all.ports.filter((p) => p.severity === "error").map((p) => p.name);
    expect(names).toEqual([...names].sort());
    expect(all.ports[0]?.severity).toBe("error");
  });

  test("one port by its NB uuid or its binding's uuid", async () => {
    const uuid = await lspUuid("dbg-q0");
    const byNb = await json<PortDiagnosis>(`/api/v1/debug/port-diagnostics/${uuid}`);
    expect(byNb).toMatchObject({
      name: "dbg-q0",
      severity: "healthy",
      binding: { chassis: chassis2.systemId },
    });
    const byPb = await json<PortDiagnosis>(`/api/v1/debug/port-diagnostics/${byNb.binding?.uuid}`);
    expect(byPb).toEqual(byNb);
    expect((await fx.get(`/api/v1/clusters/default/debug/port-diagnostics/${uuid}`)).status).toBe(200);
  });

  test("a port whose interface is removed is unbound; bound again, it is healthy", async () => {
    const path = `/api/v1/debug/port-diagnostics/${await lspUuid("dbg-q0")}`;
    await fx.ovn.vsctl(1, ["del-port", "br-int", "dbg-q0"]);
    try {
      await eventually(async () => {
        const d = await json<PortDiagnosis>(path);
        expect([d.severity, d.issues.map((i) => i.code), d.interfaces]).toEqual(["error", ["unbound"], []]);
      }, 30_000);
    } finally {
      await fx.ovn.bindPort(1, "dbg-q0");
      await fx.ovn.nbctl(["--wait=hv", "sync"]);
    }
    await eventually(async () => expect((await json<PortDiagnosis>(path)).severity).toBe("healthy"), 30_000);
  }, 90_000);

  test("an interface on a chassis the port does not ask for, and one naming no logical port", async () => {
    await fx.ovn.nbctl(["lsp-set-options", "dbg-p1", `requested-chassis=${chassis1.systemId}`]);
    await fx.ovn.bindPort(1, "dbg-p1");
    await fx.ovn.bindPort(1, "dbg-ghost");
    try {
      await eventually(async () => {
        const d = await diagnostics("?limit=5000");
        expect(d.ports.find((p) => p.name === "dbg-p1")).toMatchObject({
          severity: "error",
          issues: [
            { code: "unbound", severity: "error" },
            { code: "chassis_mismatch", severity: "error" },
          ],
          binding: { chassis: null, requested_chassis: [chassis1.systemId] },
          interfaces: [{ chassis: chassis2.systemId, name: "dbg-p1" }],
        });
        expect(d.stray_interfaces).toMatchObject([
          { chassis: chassis2.systemId, name: "dbg-ghost", iface_id: "dbg-ghost" },
        ]);
      }, 30_000);
    } finally {
      await fx.ovn.vsctl(1, ["--if-exists", "del-port", "br-int", "dbg-p1"]);
      await fx.ovn.vsctl(1, ["--if-exists", "del-port", "br-int", "dbg-ghost"]);
      await fx.ovn.nbctl(["remove", "Logical_Switch_Port", "dbg-p1", "options", "requested-chassis"]);
    }
  }, 90_000);

  test("the ports of a stopped chassis are down; healthy again once it is back", async () => {
    const path = `/api/v1/debug/port-diagnostics/${await lspUuid("dbg-p0")}`;
    await chassis1.controller.stop();
    try {
      // A new generation the stopped chassis cannot follow.
      await fx.ovn.nbctl(["--wait=sb", "sync"]);
      await eventually(async () => {
        const d = await json<PortDiagnosis>(path);
        expect([d.severity, d.issues.map((i) => i.code)]).toEqual(["error", ["chassis_down"]]);
        expect(d.issues[0]?.message).toContain(`bound to chassis ${chassis1.systemId}, which has stopped`);
      }, 30_000);
    } finally {
      await chassis1.controller.start();
      await fx.ovn.nbctl(["--wait=hv", "sync"]);
    }
    await eventually(async () => expect((await json<PortDiagnosis>(path)).severity).toBe("healthy"), 30_000);
  }, 90_000);
});

describe("port diagnostics: the caller's mistakes", () => {
  test("an invalid severity or limit is 400, an unknown uuid 404", async () => {
    for (const query of [
      "severity=bad",
      "severity=",
      "limit=0",
      "limit=abc",
      "limit=5001",
      "limit=-1",
      "x=1",
    ]) {
      const res = await fx.get(`/api/v1/debug/port-diagnostics?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(typeof (res.body as { error: unknown }).error).toBe("string");
    }
    const res = await fx.get("/api/v1/debug/port-diagnostics/00000000-0000-0000-0000-000000000000");
    expect([res.status, res.body]).toEqual([404, { error: "not found" }]);
  });
});

type Audit = {
  scopes: number;
  findings: { kind: string; acl: { match: string; scope: { name: string } }; related: { match: string }[] }[];
  truncated: boolean;
  cap: number;
  unchecked: unknown[];
};

describe("ACL audit", () => {
  test("finds exactly the shadowed and the conflicting ACLs planted on dbg-sw1, not their look-alike on dbg-sw0", async () => {
    const audit = await json<Audit>("/api/v1/debug/acl-audit");
    const found = audit.findings.map((f) => ({
      kind: f.kind,
      scope: f.acl.scope.name,
      matches: [f.acl.match, ...f.related.map((r) => r.match)].sort(),
    }));
    expect(found).toEqual([
      {
        kind: "shadowed",
        scope: "dbg-sw1",
        matches: ["ip4.src == 10.1.0.64/26", "ip4.src == 10.1.0.70 && udp"],
      },
      {
        kind: "conflicting",
        scope: "dbg-sw1",
        matches: ["ip4.dst == 192.0.2.0/24", "ip4.dst == 192.0.2.10 && tcp"],
      },
    ]);
    expect(audit).toMatchObject({ truncated: false, cap: 500, unchecked: [] });
    const shadowed = audit.findings[0];
    expect(shadowed?.acl).toMatchObject({ priority: 800, action: "allow", direction: "from-lport" });
    expect(await json<Audit>("/api/v1/debug/acl-audit?scope=dbg-sw0")).toMatchObject({
      scopes: 1,
      findings: [],
    });
    expect(
      (await json<Audit>("/api/v1/debug/acl-audit?kind=conflicting")).findings.map((f) => f.kind),
    ).toEqual(["conflicting"]);
  });

  test("past the cap the answer says truncated", async () => {
    // 23 allows and 23 drops of one priority, every pair sharing packets: 529 conflicts.
    const args = ["pg-add", "dbg_pg_cap", "dbg-p2"];
    for (let i = 1; i <= 23; i++)
      args.push(
        "--",
        "acl-add",
        "dbg_pg_cap",
        "to-lport",
        "500",
        `outport == @dbg_pg_cap && ip4.src == 10.9.0.${i}`,
        "allow",
        "--",
        "acl-add",
        "dbg_pg_cap",
        "to-lport",
        "500",
        `outport == @dbg_pg_cap && ip4.dst == 10.8.0.${i}`,
        "drop",
      );
    await fx.ovn.nbctl(args);
    try {
      await fx.caughtUp();
      const audit = await json<Audit>("/api/v1/debug/acl-audit?scope=dbg_pg_cap");
      expect([audit.findings.length, audit.truncated, audit.scopes]).toEqual([500, true, 1]);
      expect(new Set(audit.findings.map((f) => f.kind))).toEqual(new Set(["conflicting"]));
    } finally {
      await fx.ovn.nbctl(["--if-exists", "destroy", "Port_Group", "dbg_pg_cap"]);
      await fx.caughtUp();
    }
  }, 60_000);

  test("an invalid kind is 400", async () => {
    expect((await fx.get("/api/v1/debug/acl-audit?kind=odd")).status).toBe(400);
  });

  test("an unknown scope is 404, not an answer without findings (issue 28 item 11)", async () => {
    const res = await fx.get("/api/v1/debug/acl-audit?scope=nosuch");
    expect([res.status, res.body]).toEqual([
      404,
      { error: 'unknown scope: no logical switch or port group is named "nosuch" or has that uuid' },
    ]);
    const under = await fx.get(
      "/api/v1/clusters/default/debug/acl-audit?scope=00000000-0000-0000-0000-000000000000",
    );
    expect(under.status).toBe(404);
    // By uuid as by name.
    const uuid = (
      await fx.ovn.nbctl(["--bare", "--columns=_uuid", "find", "Logical_Switch", "name=dbg-sw0"])
    ).trim();
    expect(await json<Audit>(`/api/v1/debug/acl-audit?scope=${uuid}`)).toMatchObject({ scopes: 1 });
  });
});

// Last: these remove ports of the topology.
describe("stale entries", () => {
  type Stale = {
    summary: Record<string, number>;
    entries: { kind: string; reason: string; row: Record<string, unknown> }[];
  };
  const stale = async () => {
    const s = await json<Stale>("/api/v1/debug/stale-entries?limit=10000");
    return s.entries
      .filter(
        (e) =>
          JSON.stringify(e.row).includes("dbg-") ||
          ["10.1.0.12", "00:00:00:00:11:99"].some((x) => JSON.stringify(e.row).includes(x)),
      )
      .map((e) => [e.kind, e.reason, e.row.logical_port ?? e.row.mac])
      .sort();
  };
  const sb = (...args: string[]) => fx.ovn.sbctl(args);
  const sbUuid = async (table: string, where: string, column = "_uuid") =>
    (await sb("--bare", `--columns=${column}`, "find", table, where)).trim();

  test("found after ports are removed, with and without ovn-northd; cleaned once it runs", async () => {
    const lr = await sbUuid("Datapath_Binding", "external_ids:name=dbg-lr0");
    const sw1 = await sbUuid("Datapath_Binding", "external_ids:name=dbg-sw1", "tunnel_key");
    const q1 = await sbUuid("Port_Binding", "logical_port=dbg-q1", "tunnel_key");
    // What a router and a switch would have learned: dbg-p1 and dbg-q1 behind the router, a MAC on dbg-q1.
    await sb(
      "create",
      "MAC_Binding",
      "logical_port=dbg-lrp0",
      "ip=10.0.0.12",
      'mac="00:00:00:00:10:02"',
      `datapath=${lr}`,
    );
    await sb(
      "create",
      "MAC_Binding",
      "logical_port=dbg-lrp1",
      "ip=10.1.0.12",
      'mac="00:00:00:00:11:02"',
      `datapath=${lr}`,
    );
    await sb("create", "FDB", 'mac="00:00:00:00:11:99"', `dp_key=${sw1}`, `port_key=${q1}`);
    await fx.caughtUp();
    await eventually(async () => expect(await stale()).toEqual([]));

    // dbg-p1 removed: its IP is nobody's on a segment where every host is declared.
    await fx.ovn.nbctl(["--wait=sb", "lsp-del", "dbg-p1"]);
    await eventually(async () => expect(await stale()).toEqual([["mac_binding", "ip_unowned", "dbg-lrp0"]]));
    // Back with another MAC: the binding still sends its IP to the old one.
    await fx.ovn.nbctl([
      "--wait=sb",
      "lsp-add",
      "dbg-sw0",
      "dbg-p1",
      "--",
      "lsp-set-addresses",
      "dbg-p1",
      "00:00:00:00:10:99 10.0.0.12",
    ]);
    await eventually(async () =>
      expect(await stale()).toEqual([["mac_binding", "mac_mismatch", "dbg-lrp0"]]),
    );

    // dbg-q1 removed while ovn-northd is down: its binding stays, orphaned, and so do its entries.
    await fx.ovn.northd.stop();
    try {
      await fx.ovn.nbctl(["lsp-del", "dbg-q1"]);
      await eventually(async () =>
        expect(await stale()).toEqual([
          ["fdb", "port_gone", "00:00:00:00:11:99"],
          ["mac_binding", "ip_unowned", "dbg-lrp1"],
          ["mac_binding", "mac_mismatch", "dbg-lrp0"],
          ["port_binding", "no_nb_port", "dbg-q1"],
        ]),
      );
    } finally {
      await fx.ovn.northd.start();
    }
    // ovn-northd removes the binding and its FDB entry; the router's MAC bindings are still wrong.
    await fx.ovn.nbctl(["--wait=sb", "sync"]);
    await eventually(async () =>
      expect(await stale()).toEqual([
        ["mac_binding", "ip_unowned", "dbg-lrp1"],
        ["mac_binding", "mac_mismatch", "dbg-lrp0"],
      ]),
    );
    const summary = (await json<Stale>("/api/v1/debug/stale-entries?kind=fdb&limit=1")).summary;
    expect(summary.mac_binding).toBeGreaterThanOrEqual(2);
    expect(summary.total).toBe(Object.entries(summary).reduce((n, [k, v]) => (k === "total" ? n : n + v), 0));
  }, 120_000);

  test("an invalid kind or limit is 400", async () => {
    for (const q of ["kind=x", "limit=0", "limit=10001"])
      expect((await fx.get(`/api/v1/debug/stale-entries?${q}`)).status).toBe(400);
  });
});
