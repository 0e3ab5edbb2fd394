// Issue 16's path questions over the debug topology on the harness's OVN (dbg-p0 bound on the first
// chassis, dbg-q0 on the second): connectivity in both directions with what stops it (the ACL, no
// route, port security, an unbound port, a stopped chassis), and next-hop MAC resolution.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DebugFixture, startDebugFixture } from "../../../../harness/netview/debug-fixture.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import type { Connectivity } from "./connectivity.ts";
import type { NexthopMac } from "./nexthop-mac.ts";
import type { TraceView } from "./trace-view.ts";

let fx: DebugFixture;

beforeAll(async () => {
  // A short stale threshold, so that a stopped chassis is down within the test.
  fx = await startDebugFixture({ chassisStaleThresholdMs: 3000 });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

const json = async <T>(path: string): Promise<T> => {
  const res = await fx.get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body as T;
};
const connectivity = (query: string) => json<Connectivity>(`/api/v1/debug/connectivity?${query}`);
const reasons = (c: Connectivity) => c.blockers.map((b) => [b.where, b.reason]);
const aclUuid = async (match: string) =>
  (await fx.ovn.nbctl(["--bare", "--columns=_uuid", "find", "ACL", `match=${JSON.stringify(match)}`])).trim();

describe("connectivity", () => {
  test("across the router both ways, each trace kept", async () => {
    const c = await connectivity("src=dbg-p0&dst=dbg-q0");
    expect(c).toMatchObject({
      reachable: true,
      blockers: [],
      source: { port: "dbg-p0", ip: "10.0.0.11", switch: "dbg-sw0", severity: "healthy" },
      destination: { port: "dbg-q0", ip: "10.1.0.11", switch: "dbg-sw1", severity: "healthy" },
      packet: { protocol: "tcp", family: 4, src_port: 40000, dst_port: 80 },
      forward: { reached: true, delivered: ["dbg-q0"] },
      return: { reached: true, delivered: ["dbg-p0"] },
    });
    expect(c.return.microflow).toContain("tcp.src == 80 && tcp.dst == 40000");
    const back = await json<TraceView>(`/api/v1/debug/traces/${c.return.trace_id}`);
    // The reply is part of the connection: the ACL stage lets established replies through.
    expect(back.stages.find((s) => s.stage === "ls_out_acl")?.match).toContain(
      "ct.est && !ct.rel && !ct.new && !ct.inv && ct.rpl",
    );
    expect(back.outcome.delivered.map((d) => d.port)).toEqual(["dbg-p0"]);
  });

  test("names the ACL that blocks the forward packet; the allowed port passes", async () => {
    const blocked = await connectivity("src=dbg-q0&dst=dbg-p0&dst_port=22");
    expect([blocked.reachable, reasons(blocked)]).toEqual([false, [["forward", "acl_drop"]]]);
    expect(blocked.blockers[0]?.acl).toEqual({
      uuid: await aclUuid("outport == @dbg_pg_web && ip4"),
      direction: "to-lport",
      priority: 1001,
      match: "outport == @dbg_pg_web && ip4",
      action: "drop",
      scope: { kind: "port_group", name: "dbg_pg_web", uuid: expect.any(String) },
    });
    expect(blocked.blockers[0]?.stage).toMatchObject({ datapath: "dbg-sw0", stage: "ls_out_acl" });
    expect(blocked.return.reached).toBe(true);
    // From an address of $dbg_as_clients to port 80, the allow of higher priority applies.
    expect((await connectivity("src=dbg-q0&dst=dbg-p0&dst_port=80")).reachable).toBe(true);
  });

  test("a reject ACL and an unbound destination", async () => {
    const c = await connectivity("src=dbg-q0&dst=dbg-q1&protocol=udp");
    expect(reasons(c)).toEqual([
      ["destination", "unbound_port"],
      ["forward", "acl_drop"],
    ]);
    expect(c.blockers[1]?.acl).toMatchObject({ action: "reject", match: 'outport == "dbg-q1" && udp' });
    expect(c.packet).toEqual({ protocol: "udp", family: 4, src_port: 40000, dst_port: 53 });
    // The logical path is open, but no chassis hosts dbg-p2.
    const unbound = await connectivity("src=dbg-p0&dst=dbg-p2");
    expect([unbound.forward.reached, unbound.return.reached, reasons(unbound)]).toEqual([
      true,
      true,
      [["destination", "unbound_port"]],
    ]);
  });

  test("no route, and port security on the way back", async () => {
    await fx.ovn.nbctl(["lsp-set-addresses", "dbg-q0", "00:00:00:00:11:01 10.1.0.11 fd01::11"]);
    try {
      await fx.caughtUp();
      await eventually(async () => {
        const c = await connectivity("src=dbg-p0&dst=dbg-q0&family=6");
        expect(reasons(c)).toEqual([
          ["forward", "no_route"],
          ["return", "port_security"],
        ]);
        expect(c.blockers[0]?.stage).toMatchObject({ datapath: "dbg-lr0", stage: "lr_in_ip_routing" });
      });
    } finally {
      await fx.ovn.nbctl(["lsp-set-addresses", "dbg-q0", "00:00:00:00:11:01 10.1.0.11"]);
      await fx.caughtUp();
    }
  });

  test("the destination's chassis stopped", async () => {
    const chassis = fx.ovn.chassis[1];
    if (chassis === undefined) throw new Error("the sandbox has no second chassis");
    await chassis.controller.stop();
    try {
      await fx.ovn.nbctl(["--wait=sb", "sync"]);
      await eventually(async () => {
        const c = await connectivity("src=dbg-p0&dst=dbg-q0");
        expect([c.reachable, reasons(c)]).toEqual([false, [["destination", "chassis_down"]]]);
        expect(c.destination.chassis).toBe(chassis.systemId);
      }, 30_000);
    } finally {
      await chassis.controller.start();
      await fx.ovn.nbctl(["--wait=hv", "sync"]);
    }
  }, 90_000);

  test("the caller's mistakes", async () => {
    for (const [query, status] of [
      ["src=dbg-p0", 400],
      ["src=dbg-p0&dst=dbg-p0", 400],
      ["src=dbg-p0&dst=dbg-q0&family=5", 400],
      ["src=dbg-p0&dst=dbg-q0&family=6", 400],
      ["src=dbg-p0&dst=dbg-q0&protocol=arp", 400],
      ["src=dbg-p0&dst=dbg-q0&dst_port=70000", 400],
      ["src=nope&dst=dbg-q0", 404],
    ] as const) {
      const res = await fx.get(`/api/v1/debug/connectivity?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status });
    }
  });
});

describe("next-hop MAC", () => {
  const nexthop = (query: string) => json<NexthopMac>(`/api/v1/debug/nexthop-mac?${query}`);

  test("a connected address resolves to the port that declares it, IPv4 and IPv6", async () => {
    expect(await nexthop("router=dbg-lr0&ip=10.0.0.11")).toMatchObject({
      route: { kind: "connected", prefix: "10.0.0.1/24", output_port: "dbg-lrp0" },
      nexthop: "10.0.0.11",
      resolved: true,
      mac: "00:00:00:00:10:01",
      source: "logical_switch_port",
      candidates: [{ from: "dbg-p0" }],
      conflict: false,
      not_applied: [],
    });
    expect(await nexthop("router=dbg-lr0&ip=fd00::12")).toMatchObject({
      mac: "00:00:00:00:10:02",
      resolved: true,
    });
  });

  test("the default route's gateway: unresolved until a MAC binding is learned", async () => {
    expect(await nexthop("router=dbg-lr0&ip=8.8.8.8")).toMatchObject({
      route: { kind: "static", prefix: "0.0.0.0/0", nexthop: "172.16.0.254", output_port: "dbg-lrp-pub" },
      nexthop: "172.16.0.254",
      resolved: false,
      mac: null,
      candidates: [],
    });
    const lr = (
      await fx.ovn.sbctl([
        "--bare",
        "--columns=_uuid",
        "find",
        "Datapath_Binding",
        "external_ids:name=dbg-lr0",
      ])
    ).trim();
    await fx.ovn.sbctl([
      "create",
      "MAC_Binding",
      "logical_port=dbg-lrp-pub",
      "ip=172.16.0.254",
      'mac="0a:00:00:00:00:fe"',
      `datapath=${lr}`,
    ]);
    await eventually(async () =>
      expect(await nexthop("router=dbg-lr0&ip=8.8.8.8")).toMatchObject({
        resolved: true,
        mac: "0a:00:00:00:00:fe",
        source: "mac_binding",
      }),
    );
    // On the port directly, without the route.
    expect(await nexthop("router=dbg-lr0&ip=172.16.0.254&port=dbg-lrp-pub")).toMatchObject({
      route: null,
      output_port: "dbg-lrp-pub",
      mac: "0a:00:00:00:00:fe",
    });
  });

  test("no route, and the caller's mistakes", async () => {
    expect(await nexthop("router=dbg-lr0&ip=fd05::1")).toMatchObject({ route: null, resolved: false });
    for (const [query, status] of [
      ["router=dbg-lr0", 400],
      ["router=dbg-lr0&ip=10.0.0", 400],
      ["router=nope&ip=10.0.0.1", 404],
      ["router=dbg-lr0&ip=10.0.0.1&port=dbg-p0", 404],
    ] as const) {
      const res = await fx.get(`/api/v1/debug/nexthop-mac?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status });
    }
  });
});
