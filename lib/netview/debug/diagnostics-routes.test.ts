// Issue 16's debug audits over the debug topology on the harness's OVN (dbg-p0 bound on the first
// chassis, dbg-q0 on the second), with both chassis switches monitored: port diagnostics as ports are
// unbound and a chassis stopped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OvnChassis } from "../../../harness/services/ovn.ts";
import { services } from "../../../harness/test-services.ts";
import { eventually } from "../test-support.ts";
import { type DebugFixture, startDebugFixture } from "./debug-fixture.ts";
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
