// Exports against the harness's OVN: the topology document agrees with ovn-nbctl and ovn-sbctl and
// holds exactly what the topology routes answer, and a trace made through the debug route can be
// fetched again as a document by its id.
import { describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { type Answer, send } from "../../../../harness/netview/send.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import type { topologyExport } from "./topology-export.ts";

const fx = routeTestForFile({
  prepare: async (ovn) => {
    const nb = (...args: string[]) => ovn.nbctl(args);
    await nb("ls-add", "nve-sw0");
    await nb(
      "lsp-add",
      "nve-sw0",
      "nve-p0",
      "--",
      "lsp-set-addresses",
      "nve-p0",
      "00:00:00:00:ee:01 10.77.0.1",
    );
    await nb(
      "lsp-add",
      "nve-sw0",
      "nve-p1",
      "--",
      "lsp-set-addresses",
      "nve-p1",
      "00:00:00:00:ee:02 10.77.0.2",
    );
    await nb(
      "lr-add",
      "nve-lr0",
      "--",
      "lrp-add",
      "nve-lr0",
      "nve-lrp0",
      "00:00:00:00:ee:ff",
      "10.77.0.254/24",
    );
    await nb(
      "lsp-add",
      "nve-sw0",
      "nve-sw0-lr0",
      "--",
      "lsp-set-type",
      "nve-sw0-lr0",
      "router",
      "--",
      "lsp-set-addresses",
      "nve-sw0-lr0",
      "router",
      "--",
      "lsp-set-options",
      "nve-sw0-lr0",
      "router-port=nve-lrp0",
    );
    await nb("lrp-set-gateway-chassis", "nve-lrp0", ovn.chassis[0]?.systemId ?? "", "5");
    await ovn.bindPort(0, "nve-p0");
    await nb("--wait=hv", "sync");
  },
  cleanup: async (ovn) => {
    await ovn.nbctl(["--if-exists", "lr-del", "nve-lr0"]);
    await ovn.nbctl(["--if-exists", "ls-del", "nve-sw0"]);
    await ovn.vsctl(0, ["--if-exists", "del-port", "nve-p0"]);
  },
});

const get = (path: string) => send(fx().app, "GET", path) as Promise<Answer<Record<string, unknown>>>;

describe("exports", () => {
  test("the topology document agrees with ovn-nbctl and ovn-sbctl, and with the topology routes", async () => {
    type Topology = ReturnType<typeof topologyExport>;
    let doc: Topology | undefined;
    const port = (name: string) => doc?.ports.find((p) => p.name === name);
    await eventually(async () => {
      doc = (await get("/api/v1/export/topology")).body as unknown as Topology;
      expect(port("nve-p0")?.chassis).toBe(fx().ovn.chassis[0]?.systemId as string);
    });
    expect(doc).toMatchObject({ format: "netview-topology", version: 1, cluster: "default", stale: false });
    const sw = doc?.switches.find((s) => s.name === "nve-sw0");
    expect(
      doc?.ports
        .filter((p) => p.owner === sw?.uuid)
        .map((p) => p.name)
        .sort(),
    ).toEqual(
      (await fx().ovn.nbctl(["lsp-list", "nve-sw0"]))
        .trim()
        .split("\n")
        .map((l) => l.replace(/^.*\((.*)\)$/, "$1"))
        .sort(),
    );
    expect(port("nve-p1")).toMatchObject({
      kind: "logical_switch_port",
      addresses: ["00:00:00:00:ee:02 10.77.0.2"],
      chassis: null,
      type: "",
    });
    expect(port("nve-lrp0")).toMatchObject({
      kind: "logical_router_port",
      owner: doc?.routers.find((r) => r.name === "nve-lr0")?.uuid,
      mac: "00:00:00:00:ee:ff",
      networks: ["10.77.0.254/24"],
    });
    expect(doc?.links).toContainEqual(
      expect.objectContaining({
        kind: "switch-router",
        from: expect.objectContaining({ name: "nve-sw0" }),
        to: expect.objectContaining({ name: "nve-lr0" }),
        via: ["nve-sw0-lr0", "nve-lrp0"],
      }),
    );
    expect(doc?.gateways.gateway_ports.find((g) => g.router_port.name === "nve-lrp0")?.chassis).toEqual([
      expect.objectContaining({ name: fx().ovn.chassis[0]?.systemId, priority: 5 }),
    ]);
    expect(doc?.chassis.map((c) => c.name)).toEqual(
      fx()
        .ovn.chassis.map((c) => c.systemId)
        .sort(),
    );
    expect(doc?.chassis[0]?.encaps).toEqual([{ type: "geneve", ip: fx().ovn.chassis[0]?.encapIp as string }]);
    // The same builders as the routes: every view is in the document as the route answers it.
    const { format, version, cluster, exported_at, stale, gateways, nat, load_balancers, ...graph } =
      doc as Topology;
    expect((await get("/api/v1/topology")).body).toEqual(graph);
    expect((await get("/api/v1/topology/gateway")).body).toEqual(gateways);
    expect((await get("/api/v1/topology/nat")).body as unknown).toEqual(nat);
    expect((await get("/api/v1/topology/load-balancers")).body as unknown).toEqual(load_balancers);
    const res = await get("/api/v1/clusters/default/export/topology");
    expect(res.headers.get("content-disposition")).toContain("netview-topology-default-");
  }, 60_000);

  test("a trace is exported by its id; an unknown id is 404", async () => {
    const traced = await fx().app.handle(
      new Request("http://localhost/api/v1/debug/trace?inport=nve-p0&ip_dst=10.77.0.2"),
    );
    expect(traced.status).toBe(200);
    const [recent] = (await get("/api/v1/debug/traces?limit=1")).body as unknown as { id: string }[];
    const exported = await get(`/api/v1/export/trace/${recent?.id}`);
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({
      format: "netview-trace",
      version: 1,
      id: recent?.id,
      cluster: "default",
    });
    expect((exported.body.view as { inport: string }).inport).toBe("nve-p0");
    expect(exported.headers.get("content-disposition")).toContain(`netview-trace-${recent?.id}.json`);
    expect(await get("/api/v1/export/trace/nope")).toMatchObject({
      status: 404,
      body: { error: "not found" },
    });
  }, 60_000);
});
