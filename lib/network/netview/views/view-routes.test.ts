// Issue 16's correlated views, search, topology and flows over the debug topology on the harness's
// OVN (dbg-p0 bound on the first chassis, dbg-q0 on the second), compared with what ovn-nbctl and
// ovn-sbctl report for the same objects.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DebugFixture, startDebugFixture } from "../../../../harness/netview/debug-fixture.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";

let fx: DebugFixture;
let chassis1: string;
const uuidOf = async (run: "nbctl" | "sbctl", table: string, where: string) =>
  (await fx.ovn[run](["--bare", "--columns=_uuid", "find", table, where])).trim();

beforeAll(async () => {
  fx = await startDebugFixture();
  await fx.ovn.nbctl(["set", "Logical_Switch_Port", "dbg-p1", "external_ids:neutron\\:network_id=net-7f3a"]);
  await fx.caughtUp();
  chassis1 = fx.ovn.chassis[0]?.systemId ?? "";
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

type Json = Record<string, unknown>;
const body = async (path: string) => {
  const res = await fx.get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body as Json & Json[];
};

describe("correlated views", () => {
  test("switches: counts, then one switch with ports, bindings, ACLs, groups, balancers, routers", async () => {
    const list = (await body("/api/v1/correlated/logical-switches")) as unknown as Json[];
    const sw0 = list.find((s) => s.name === "dbg-sw0") as Json;
    const tunnelKey = Number(
      (
        await fx.ovn.sbctl([
          "--bare",
          "--columns=tunnel_key",
          "find",
          "Datapath_Binding",
          "external_ids:name=dbg-sw0",
        ])
      ).trim(),
    );
    expect(sw0).toMatchObject({
      ports: 4,
      acls: 6,
      load_balancers: 3,
      routers: ["dbg-lr0"],
      datapath: { tunnel_key: tunnelKey },
    });
    const detail = await body(`/api/v1/correlated/logical-switches/${sw0.uuid}`);
    const ports = detail.port_list as Json[];
    expect(ports.map((p) => p.name)).toEqual(["dbg-p0", "dbg-p1", "dbg-p2", "dbg-sw0-lr"]);
    expect(ports[0]).toMatchObject({
      router_port: null,
      binding: { chassis: { name: chassis1, alive: true }, up: true },
    });
    expect(ports[3]).toMatchObject({ type: "router", router_port: "dbg-lrp0" });
    expect((detail.acl_list as Json[]).map((a) => [a.priority, a.action, (a.scope as Json).name])).toEqual([
      [1002, "allow-related", "dbg_pg_web"],
      [1002, "allow-related", "dbg_pg_web"],
      [1002, "allow-related", "dbg_pg_web"],
      [1002, "allow-related", "dbg_pg_web"],
      [1001, "drop", "dbg_pg_web"],
      [800, "allow", "dbg-sw0"],
    ]);
    expect(detail.port_groups).toEqual([
      { uuid: expect.any(String), name: "dbg_pg_web", ports: ["dbg-p0", "dbg-p1"] },
    ]);
    expect((detail.load_balancer_list as Json[]).map((l) => l.name)).toEqual([
      "dbg-lb0",
      "dbg-lb6",
      "dbg-lbu",
    ]);
  });

  test("a switch port with its switch, groups, ACLs and binding", async () => {
    const uuid = await uuidOf("nbctl", "Logical_Switch_Port", "name=dbg-p0");
    const p = await body(`/api/v1/correlated/logical-switch-ports/${uuid}`);
    expect(p).toMatchObject({
      name: "dbg-p0",
      switch: { name: "dbg-sw0" },
      port_groups: [{ name: "dbg_pg_web" }],
    });
    expect((p.acls as Json[]).length).toBe(6);
    const pb = (
      await fx.ovn.sbctl(["--bare", "--columns=_uuid", "find", "Port_Binding", "logical_port=dbg-p0"])
    ).trim();
    expect(p.binding).toMatchObject({ uuid: pb, chassis: { name: chassis1 } });
  });

  test("routers: NAT, routes, balancers, and the gateway port's chassis by priority with the active one", async () => {
    const list = (await body("/api/v1/correlated/logical-routers")) as unknown as Json[];
    const lr = list.find((r) => r.name === "dbg-lr0") as Json;
    expect(lr).toMatchObject({ ports: 3, nat: 2, static_routes: 1, load_balancers: 3 });
    const detail = await body(`/api/v1/correlated/logical-routers/${lr.uuid}`);
    const pub = (detail.port_list as Json[]).find((p) => p.name === "dbg-lrp-pub") as Json;
    expect(pub.gateway_chassis).toEqual([
      { chassis: chassis1, priority: 20, registered: true, alive: true, active: true },
    ]);
    expect(pub.switch).toMatchObject({ name: "dbg-pub", switch_port: "dbg-pub-lr" });
    expect((detail.nat_list as Json[]).map((n) => [n.type, n.external_ip, n.logical_ip]).sort()).toEqual([
      ["dnat_and_snat", "172.16.0.111", "10.1.0.11"],
      ["snat", "172.16.0.1", "10.0.0.0/24"],
    ]);
    const lrp = await body(`/api/v1/correlated/logical-router-ports/${pub.uuid}`);
    expect(lrp).toMatchObject({
      name: "dbg-lrp-pub",
      router: { name: "dbg-lr0" },
      active_chassis: { name: chassis1 },
    });
  });

  test("a port binding and a chassis, each with the other side", async () => {
    const pb = await uuidOf("sbctl", "Port_Binding", "logical_port=dbg-q0");
    const binding = await body(`/api/v1/correlated/port-bindings/${pb}`);
    expect(binding).toMatchObject({
      logical_port: "dbg-q0",
      nb_port: { kind: "logical_switch_port", name: "dbg-q0" },
      datapath: { name: "dbg-sw1", nb: { name: "dbg-sw1" } },
    });
    const ch = await uuidOf("sbctl", "Chassis", `name=${chassis1}`);
    const detail = await body(`/api/v1/correlated/chassis/${ch}`);
    expect((detail.bound_port_list as Json[]).map((p) => p.logical_port)).toEqual(
      expect.arrayContaining(["cr-dbg-lrp-pub", "dbg-p0"]),
    );
    expect(detail.gateway_duties).toContainEqual({
      router_port: "dbg-lrp-pub",
      router: "dbg-lr0",
      priority: 20,
      active: true,
    });
    const list = (await body("/api/v1/correlated/chassis")) as unknown as Json[];
    expect(list.find((c) => c.name === chassis1)).toMatchObject({ alive: true, in_sync: true });
  });

  test("unknown uuids are 404, under both prefixes", async () => {
    for (const path of [
      "logical-switches",
      "logical-switch-ports",
      "logical-routers",
      "logical-router-ports",
      "port-bindings",
      "chassis",
    ]) {
      for (const prefix of ["/api/v1", "/api/v1/clusters/default"]) {
        const res = await fx.get(`${prefix}/correlated/${path}/00000000-0000-0000-0000-000000000000`);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 404,
          body: { error: "not found" },
        });
      }
    }
  });
});

describe("search", () => {
  const hits = async (q: string) => (await body(`/api/v1/search?q=${encodeURIComponent(q)}`)).hits as Json[];

  test("a name, ranked exact first", async () => {
    const h = await hits("dbg-p0");
    expect(h[0]).toMatchObject({
      kind: "logical_switch_port",
      database: "nb",
      name: "dbg-p0",
      score: 90,
      href: expect.stringContaining("/api/v1/correlated/logical-switch-ports/"),
    });
    expect(h.some((x) => x.kind === "port_binding" && x.name === "dbg-p0")).toBe(true);
  });

  test("a MAC finds the port in NB and SB", async () => {
    const h = await hits("00:00:00:00:10:01");
    expect(h.filter((x) => x.score === 85).map((x) => `${x.database}/${x.table}/${x.name}`)).toEqual(
      expect.arrayContaining(["nb/Logical_Switch_Port/dbg-p0", "sb/Port_Binding/dbg-p0"]),
    );
  });

  test("an IP finds the port, the NAT, and the address set and router network that contain it", async () => {
    const h = await hits("10.1.0.11");
    const tables = h.map((x) => `${x.table}:${x.score}`);
    expect(tables).toEqual(
      expect.arrayContaining([
        "Logical_Switch_Port:85",
        "NAT:85",
        "Address_Set:60",
        "Logical_Router_Port:60",
      ]),
    );
    expect(h.find((x) => x.table === "Address_Set")).toMatchObject({
      name: "dbg_as_clients",
      field: "addresses",
      value: "10.1.0.0/24",
    });
  });

  test("a UUID prefix and an external id value", async () => {
    const uuid = await uuidOf("nbctl", "Logical_Switch", "name=dbg-sw1");
    expect((await hits(uuid.slice(0, 8)))[0]).toMatchObject({ uuid, score: 70 });
    expect((await hits(uuid))[0]).toMatchObject({ uuid, score: 100 });
    await eventually(async () => expect((await hits("net-7f3a")).length).toBe(2));
    expect((await hits("net-7f3a"))[0]).toMatchObject({
      name: "dbg-p1",
      field: "external_ids:neutron:network_id",
    });
  });

  test("bad queries are 400", async () => {
    for (const q of ["", "?limit=0&q=x", "?q=x&limit=abc", "?q=x&q=y"]) {
      const res = await fx.get(`/api/v1/search${q.startsWith("?") ? q : `?q=${q}`}`);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
    }
    expect((await fx.get("/api/v1/search")).status).toBe(400);
  });
});

describe("topology", () => {
  test("links between switches, routers and physical networks; chassis with their ports", async () => {
    const t = await body("/api/v1/topology");
    expect(t.links).toContainEqual({
      kind: "switch-router",
      from: { type: "logical_switch", uuid: expect.any(String), name: "dbg-sw0" },
      to: { type: "logical_router", uuid: expect.any(String), name: "dbg-lr0" },
      via: ["dbg-sw0-lr", "dbg-lrp0"],
    });
    expect(t.links).toContainEqual({
      kind: "switch-physical",
      from: { type: "logical_switch", uuid: expect.any(String), name: "dbg-pub" },
      to: { type: "physical_network", uuid: "", name: "physnet1" },
      via: ["dbg-ln"],
    });
    expect((t.chassis as Json[]).find((c) => c.name === chassis1)?.ports).toEqual(
      expect.arrayContaining(["dbg-p0"]),
    );
  });

  test("gateway, NAT and load balancers", async () => {
    const g = await body("/api/v1/topology/gateway");
    expect(
      (g.gateway_ports as Json[]).find((p) => (p.router_port as Json).name === "dbg-lrp-pub"),
    ).toMatchObject({
      router: { name: "dbg-lr0" },
      chassisredirect_port: "cr-dbg-lrp-pub",
      active_chassis: chassis1,
      chassis: [{ name: chassis1, priority: 20, active: true }],
    });
    const nat = (await body("/api/v1/topology/nat")) as unknown as Json[];
    expect(
      nat
        .filter((n) => (n.router as Json).name === "dbg-lr0")
        .map((n) => [n.type, n.gateway_port, n.chassis]),
    ).toEqual([
      ["snat", "dbg-lrp-pub", chassis1],
      ["dnat_and_snat", "dbg-lrp-pub", chassis1],
    ]);
    const lbs = (await body("/api/v1/topology/load-balancers")) as unknown as Json[];
    const lb0 = lbs.find((l) => l.name === "dbg-lb0") as Json;
    expect(lb0.vips).toEqual([
      {
        vip: "10.0.0.100:80",
        backends: [
          { backend: "10.0.0.11:80", ip: "10.0.0.11", port: 80, status: null },
          { backend: "10.0.0.12:80", ip: "10.0.0.12", port: 80, status: null },
        ],
      },
    ]);
    expect((lb0.used_by as Json[]).map((u) => u.name).sort()).toEqual(["dbg-lr0", "dbg-sw0"]);
  });
});

describe("flows", () => {
  test("filtered by datapath and stage, equal to ovn-sbctl lflow-list's count", async () => {
    const page = await body("/api/v1/flows?datapath=dbg-sw0&stage=ls_in_acl&limit=1000");
    const listed = (await fx.ovn.sbctl(["lflow-list", "dbg-sw0"]))
      .split("\n")
      .filter((l) => /\(ls_in_acl\s*\)/.test(l)).length;
    expect(page.total).toBe(listed);
    expect((page.flows as Json[]).every((f) => f.stage === "ls_in_acl" && f.pipeline === "ingress")).toBe(
      true,
    );
    const text = await body("/api/v1/flows?datapath=dbg-sw0&match=dbg_pg_web&limit=2&offset=1");
    expect(text).toMatchObject({ offset: 1, limit: 2 });
    expect((text.flows as Json[]).length).toBe(2);
    expect((await body("/api/v1/flows?datapath=no-such-datapath")).total).toBe(0);
  });

  test("bad filters are 400", async () => {
    for (const q of ["pipeline=sideways", "table=-1", "limit=5000", "offset=x", "prio=1"]) {
      expect({ q, status: (await fx.get(`/api/v1/flows?${q}`)).status }).toEqual({ q, status: 400 });
    }
  });
});
