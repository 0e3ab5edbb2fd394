// Acceptance of issue 5 against the harness's OVN sandbox: a topology built with ovn-nbctl, two
// chassis binding ports, and a bare switch database for counter deltas. The API is driven through
// app.handle (the same code path as a listening server, without a port).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openApiProblems } from "../../../harness/http/openapi-problems.ts";
import { promtoolLint } from "../../../harness/metrics/promtool.ts";
import { send } from "../../../harness/netview/send.ts";
import { eventually, quietLogger } from "../../../harness/netview/test-support.ts";
import type { BareVswitchDb, OvnService } from "../../../harness/services/ovn.ts";
import { services } from "../../../harness/test-services.ts";
import { compare } from "../../foundation/collections/compare.ts";
import { createRegistry } from "../../foundation/metrics/registry.ts";
import { cliTableRows } from "../ovsdb/cli-table.ts";
import type { Row } from "../ovsdb/datum.ts";
import { buildClusters } from "./build-clusters.ts";
import type { ClusterSet } from "./cluster.ts";
import { netviewApp } from "./netview-app.ts";
import { registerNetviewMetrics } from "./netview-metrics.ts";
import { parseNetviewOptions } from "./netview-options.ts";
import { nbTables, ovsRouteName, sbTables } from "./table-names.ts";

let ovn: OvnService;
let bare: BareVswitchDb;
let dhcpUuids: string[] = [];
const sbMarked: [string, string][] = [];
let dir: string;
let clusters: ClusterSet;
let app: ReturnType<typeof netviewApp>;

const get = (path: string) => send(app, "GET", path);

const byUuid = (a: Row, b: Row) => compare(a._uuid, b._uuid);

beforeAll(async () => {
  // The run's shared sandbox: this file's names start with nv- and afterAll removes them again.
  ovn = await services.ovn();
  bare = await ovn.startBareVswitchDb();
  const nb = (...args: string[]) => ovn.nbctl(args);
  await nb("ls-add", "nv-sw0", "--", "set", "Logical_Switch", "nv-sw0", "other_config:subnet=10.0.0.0/24");
  await nb("ls-add", "nv-sw1");
  await nb("lsp-add", "nv-sw0", "nv-p0", "--", "lsp-set-addresses", "nv-p0", "00:00:00:00:00:01 10.0.0.1");
  await nb(
    "lsp-add",
    "nv-sw0",
    "nv-p1",
    "--",
    "lsp-set-addresses",
    "nv-p1",
    "00:00:00:00:00:02 10.0.0.2",
    "unknown",
  );
  await nb(
    "lsp-add",
    "nv-sw1",
    "nv-p2",
    "--",
    "lsp-set-port-security",
    "nv-p2",
    "00:00:00:00:00:03 10.1.0.3",
  );
  await nb("lr-add", "nv-lr0");
  await nb("lrp-add", "nv-lr0", "nv-lrp0", "00:00:00:00:ff:01", "10.0.0.254/24");
  await nb("lrp-add", "nv-lr0", "nv-lrp1", "00:00:00:00:ff:02", "10.1.0.254/24");
  await nb("lsp-add", "nv-sw0", "nv-sw0-lr0", "--", "lsp-set-type", "nv-sw0-lr0", "router");
  await nb(
    "lsp-set-addresses",
    "nv-sw0-lr0",
    "router",
    "--",
    "lsp-set-options",
    "nv-sw0-lr0",
    "router-port=nv-lrp0",
  );
  await nb("acl-add", "nv-sw0", "to-lport", "1000", "ip4.src == 10.0.0.9", "drop");
  await nb("pg-add", "nv_pg1", "nv-p0", "nv-p1");
  await nb("acl-add", "nv_pg1", "from-lport", "900", "inport == @nv_pg1 && ip4", "allow-related");
  await nb("create", "Address_Set", "name=nv_as1", 'addresses="10.0.0.1","10.0.0.2"');
  await nb("lb-add", "nv-lb0", "10.0.0.100:80", "10.0.0.1:80,10.0.0.2:80", "tcp");
  await nb("ls-lb-add", "nv-sw0", "nv-lb0");
  await nb("lr-nat-add", "nv-lr0", "snat", "172.16.0.1", "10.0.0.0/24");
  await nb("lr-route-add", "nv-lr0", "0.0.0.0/0", "10.0.0.1");
  await nb("lr-policy-add", "nv-lr0", "100", "ip4.src == 10.0.0.5", "allow");
  await nb("dhcp-options-create", "10.0.0.0/24", "nv=1");
  dhcpUuids = (await nb("--bare", "--columns=_uuid", "find", "DHCP_Options", "external_ids:nv=1"))
    .split("\n")
    .filter((l) => l !== "");
  for (const uuid of dhcpUuids)
    await nb("dhcp-options-set-options", uuid, "lease_time=3600", "router=10.0.0.254");
  // The rest of the NB tables, so that no comparison is of two empty lists.
  const lb = (await nb("--bare", "--columns=_uuid", "find", "Load_Balancer", "name=nv-lb0")).trim();
  await nb(
    "--",
    "--id=@g",
    "create",
    "Load_Balancer_Group",
    "name=nv_lbg",
    `load_balancer=${lb}`,
    "--",
    "add",
    "Logical_Switch",
    "nv-sw1",
    "load_balancer_group",
    "@g",
  );
  await nb(
    "--",
    "--id=@d",
    "create",
    "DNS",
    "records:vm1.nv=10.0.0.1",
    "external_ids:nv=1",
    "--",
    "add",
    "Logical_Switch",
    "nv-sw0",
    "dns_records",
    "@d",
  );
  await nb("lrp-set-gateway-chassis", "nv-lrp1", ovn.chassis[0]?.systemId ?? "", "20");
  await nb(
    "ha-chassis-group-add",
    "nv_hag",
    "--",
    "ha-chassis-group-add-chassis",
    "nv_hag",
    ovn.chassis[1]?.systemId ?? "",
    "30",
  );
  await nb("meter-add", "nv_meter", "drop", "10", "pktps");
  await nb("qos-add", "nv-sw0", "to-lport", "100", "ip4", "rate=1000");
  await nb("create", "BFD", "logical_port=nv-lrp1", "dst_ip=10.1.0.9");
  await nb("copp-add", "nv_copp", "arp", "nv_meter");
  await nb(
    "mirror-add",
    "nv_mirror",
    "gre",
    "7",
    "to-lport",
    "10.9.9.9",
    "--",
    "lsp-attach-mirror",
    "nv-p0",
    "nv_mirror",
  );
  await nb("fwd-group-add", "nv_fwd", "nv-sw0", "10.0.0.50", "00:00:00:00:00:50", "nv-p0", "nv-p1");
  await nb("static-mac-binding-add", "nv-lrp0", "10.0.0.77", "00:00:00:00:00:77");
  await nb(
    "--",
    "--id=@h",
    "create",
    "Load_Balancer_Health_Check",
    'vip="10.0.0.100:80"',
    "--",
    "add",
    "Load_Balancer",
    lb,
    "health_check",
    "@h",
  );
  await nb("set-connection", "ptcp:0:127.0.0.1");
  await nb("set", "Load_Balancer", lb, "ip_port_mappings:10.0.0.1=nv-p0:10.0.0.99");
  await ovn.bindPort(0, "nv-p0");
  await ovn.bindPort(1, "nv-p1");
  await nb("--wait=hv", "sync");
  // SB rows that only traffic or events would make: written directly, marked, removed in afterAll.
  const sb = (...args: string[]) => ovn.sbctl(args);
  const dp = (
    await sb("--bare", "--columns=_uuid", "find", "Datapath_Binding", "external_ids:name=nv-lr0")
  ).trim();
  const swKey = (
    await sb("--bare", "--columns=tunnel_key", "find", "Datapath_Binding", "external_ids:name=nv-sw0")
  ).trim();
  const chassisUuid = (
    await sb("--bare", "--columns=_uuid", "find", "Chassis", `name=${ovn.chassis[0]?.systemId}`)
  ).trim();
  sbMarked.push(
    [
      "MAC_Binding",
      (
        await sb(
          "create",
          "MAC_Binding",
          "logical_port=nv-lrp0",
          "ip=10.0.0.66",
          'mac="00:00:00:00:00:66"',
          `datapath=${dp}`,
        )
      ).trim(),
    ],
    ["FDB", (await sb("create", "FDB", 'mac="00:00:00:00:00:67"', `dp_key=${swKey}`, "port_key=1")).trim()],
    [
      "Controller_Event",
      (
        await sb(
          "create",
          "Controller_Event",
          "event_type=empty_lb_backends",
          "event_info:vip=10.0.0.100",
          "seq_num=1",
          `chassis=${chassisUuid}`,
        )
      ).trim(),
    ],
  );
  await sb("set-connection", "ptcp:0:127.0.0.1");

  dir = mkdtempSync(join(tmpdir(), "svc-netview-test-"));
  const mgmt = join(dir, "mgmt.txt");
  writeFileSync(
    mgmt,
    [...ovn.chassis.map((c) => `${c.systemId} ${c.dbRemote}`), `bare-1 ${bare.dbRemote}`].join("\n"),
  );
  const options = parseNetviewOptions(
    [
      `--ovnnb-db=${ovn.nbRemote}`,
      `--ovnsb-db=${ovn.sbRemote}`,
      `--ovs-mgmt-addr-file=${mgmt}`,
      "--probe-interval=1s",
    ],
    (path) => readFileSync(path, "utf8"),
  );
  // Quick retries keep the fault tests short.
  clusters = buildClusters(options, undefined, { initialMs: 50, maxMs: 300 });
  const registry = createRegistry();
  registerNetviewMetrics(registry, clusters);
  app = netviewApp({
    clusters,
    settings: { writeEnabled: false, wsAllowedOrigins: [], chassisStaleThresholdMs: 60_000 },
    logger: quietLogger,
    registry,
    metricsEnabled: true,
  });
  clusters.start();
  await eventually(async () => expect((await get("/readyz")).status).toBe(200));
  await eventually(async () =>
    expect(((await get("/api/v1/ovs")).body as { connected: boolean }[]).every((m) => m.connected)).toBe(
      true,
    ),
  );
}, 90_000);

afterAll(async () => {
  clusters?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await bare?.stop();
  if (ovn === undefined) return;
  // Everything this file made is named nv-/nv_ (or marked), and goes in an order that drops strong
  // references before their targets.
  const named = async (table: string): Promise<string[]> => {
    const out = JSON.parse(await ovn.nbctl(["--format=json", "--columns=_uuid,name", "list", table])) as {
      data: [[string, string], string][];
    };
    return out.data.filter(([, name]) => name.startsWith("nv")).map(([[, uuid]]) => uuid);
  };
  const find = async (table: string, condition: string) =>
    (await ovn.nbctl(["--bare", "--columns=_uuid", "find", table, condition]))
      .split("\n")
      .filter((l) => l !== "");
  for (const table of ["Logical_Switch", "Logical_Router"]) {
    for (const uuid of await named(table)) await ovn.nbctl(["destroy", table, uuid]);
  }
  for (const table of [
    "Load_Balancer_Group",
    "Load_Balancer",
    "Port_Group",
    "Address_Set",
    "HA_Chassis_Group",
    "Copp",
    "Meter",
    "Mirror",
  ]) {
    for (const uuid of await named(table)) await ovn.nbctl(["destroy", table, uuid]);
  }
  for (const uuid of await find("DNS", "external_ids:nv=1")) await ovn.nbctl(["destroy", "DNS", uuid]);
  for (const uuid of await find("BFD", "logical_port=nv-lrp1")) await ovn.nbctl(["destroy", "BFD", uuid]);
  for (const uuid of await find("Static_MAC_Binding", "logical_port=nv-lrp0")) {
    await ovn.nbctl(["destroy", "Static_MAC_Binding", uuid]);
  }
  for (const uuid of dhcpUuids) await ovn.nbctl(["dhcp-options-del", uuid]);
  await ovn.nbctl(["del-connection"]);
  await ovn.sbctl(["del-connection"]);
  for (const [table, uuid] of sbMarked) await ovn.sbctl(["--if-exists", "destroy", table, uuid]);
  await ovn.vsctl(0, ["--if-exists", "del-port", "nv-p0", "--", "del-ssl"]);
  await ovn.vsctl(1, ["--if-exists", "del-port", "nv-p1"]);
});

describe("tables", () => {
  test("every NB and SB list and detail equals ovn-nbctl/ovn-sbctl --format=json list", async () => {
    const dbs = [
      { prefix: "nb", tables: nbTables, ctl: ovn.nbctl, cache: clusters.defaultCluster.nb.cache },
      { prefix: "sb", tables: sbTables, ctl: ovn.sbctl, cache: clusters.defaultCluster.sb.cache },
    ];
    let compared = 0;
    for (const db of dbs) {
      for (const [route, table] of Object.entries(db.tables)) {
        const schema = db.cache.schema?.tables[table];
        if (schema === undefined) throw new Error(`${table} missing`);
        await eventually(async () => {
          const cli = cliTableRows(await db.ctl(["--format=json", "list", table]), schema).sort(byUuid);
          const api = await get(`/api/v1/${db.prefix}/${route}`);
          expect(api.status).toBe(200);
          expect(api.stale).toBe(false);
          expect((api.body as Row[]).sort(byUuid)).toEqual(cli);
          for (const row of cli) {
            const detail = await get(`/api/v1/${db.prefix}/${route}/${row._uuid}`);
            expect(detail.body).toEqual(row);
          }
        });
        compared += db.cache.rows(table).length > 0 ? 1 : 0;
      }
    }
    // The topology must exercise most tables, or the comparison proves little.
    // All but SB IGMP_Group (needs multicast traffic) and SB Gateway_Chassis (unused since OVN 20.06).
    expect(compared).toBeGreaterThanOrEqual(54);
  }, 60_000);

  test("unknown uuid, unknown cluster, the cluster prefix", async () => {
    expect(await get("/api/v1/nb/logical-switches/00000000-0000-0000-0000-000000000000")).toMatchObject({
      status: 404,
      body: { error: "not found" },
    });
    expect((await get("/api/v1/clusters/nope/nb/logical-switches")).status).toBe(404);
    const top = await get("/api/v1/nb/logical-switches");
    const prefixed = await get("/api/v1/clusters/default/nb/logical-switches");
    expect(prefixed.body).toEqual(top.body);
    expect((await get("/api/v1/nb/no-such-table")).body).toEqual({ error: "not found" });
  }, 60_000);
});

describe("chassis inventory", () => {
  test("agrees with ovn-sbctl show and Chassis_Private", async () => {
    const show = await ovn.sbctl(["show"]);
    const list = (await get("/api/v1/sb/chassis-inventory")).body as Record<string, unknown>[];
    expect(list.map((c) => c.name)).toEqual(ovn.chassis.map((c) => c.systemId));
    for (const [i, entry] of list.entries()) {
      expect(show).toContain(`Chassis ${entry.name}`);
      expect(entry.tunnel_endpoints).toEqual([
        { type: "geneve", ip: ovn.chassis[i]?.encapIp, options: { csum: "true" } },
      ]);
      const nbCfg = Number(
        (await ovn.sbctl(["get", "Chassis_Private", String(entry.name), "nb_cfg"])).trim(),
      );
      const globalCfg = Number((await ovn.sbctl(["get", "SB_Global", ".", "nb_cfg"])).trim());
      expect(entry).toMatchObject({
        nb_cfg: nbCfg,
        global_nb_cfg: globalCfg,
        in_sync: nbCfg === globalCfg,
        alive: true,
        stale: false,
      });
      expect((entry.ports as { bound: number }).bound).toBeGreaterThanOrEqual(1);
    }
    const detail = (await get(`/api/v1/sb/chassis-inventory/${ovn.chassis[0]?.systemId}`)).body as Record<
      string,
      unknown
    >;
    expect((detail.bound_ports as { logical_port: string }[]).map((p) => p.logical_port)).toContain("nv-p0");
    expect(show).toContain("Port_Binding nv-p0");
    expect(detail.other_config).toBeDefined();
    expect((await get("/api/v1/sb/chassis-inventory/nope")).status).toBe(404);
  }, 60_000);
});

describe("live switch state", () => {
  test("tables equal ovs-vsctl list; correlation; the SSL private key is never served", async () => {
    await ovn.vsctl(0, ["set-ssl", "/etc/k.pem", "/etc/c.pem", "/etc/ca.pem"]);
    const c1 = ovn.chassis[0]?.systemId as string;
    for (const table of ["Bridge", "Port", "Open_vSwitch", "SSL"]) {
      const cache = clusters.defaultCluster.fleet?.members.get(c1)?.client.cache;
      const schema = cache?.schema?.tables[table];
      if (schema === undefined) throw new Error(table);
      await eventually(async () => {
        const cli = cliTableRows(await ovn.vsctl(0, ["--format=json", "list", table]), schema)
          .map((row) => {
            if (table !== "SSL") return row;
            const { private_key: _k, ...rest } = row;
            return rest as Row;
          })
          .sort(byUuid);
        const api = await get(`/api/v1/ovs/${c1}/${ovsRouteName(table)}`);
        expect((api.body as Row[]).sort(byUuid)).toEqual(cli);
      });
    }
    const ssl = await get(`/api/v1/ovs/${c1}/ssl`);
    expect(ssl.text).not.toContain("k.pem");
    const ifaces = (await get(`/api/v1/ovs/${c1}/interface`)).body as Row[];
    const p0 = ifaces.find((i) => i.name === "nv-p0");
    const brInt = ifaces.find((i) => i.name === "br-int");
    if (p0 === undefined || brInt === undefined) throw new Error("interfaces");
    expect((await get(`/api/v1/ovs/${c1}/interface/${p0._uuid}`)).body).toEqual(p0);
    expect((await get(`/api/v1/ovs/${c1}/interface/${p0._uuid}/correlation`)).body).toMatchObject({
      bound: true,
      logical_port: "nv-p0",
      up: true,
      chassis_name: c1,
      bound_here: true,
      drift: false,
      datapath_name: "nv-sw0",
    });
    expect((await get(`/api/v1/ovs/${c1}/interface/${brInt._uuid}/correlation`)).body).toMatchObject({
      bound: false,
      iface_id: null,
    });
    for (const table of [
      "interface",
      "bridge",
      "port",
      "open-vswitch",
      "manager",
      "controller",
      "ipfix",
      "sflow",
      "netflow",
      "mirror",
      "qos",
      "queue",
      "ct-zone",
      "ct-timeout-policy",
      "datapath",
      "flow-table",
      "flow-sample-collector-set",
      "ssl",
      "autoattach",
    ]) {
      expect((await get(`/api/v1/ovs/${c1}/${table}`)).status).toBe(200);
    }
    expect((await get(`/api/v1/ovs/nope/interface`)).body).toEqual({ error: "unknown chassis" });
    expect((await get(`/api/v1/ovs/${c1}/nope`)).body).toEqual({ error: "unknown table" });
    expect(
      (await get(`/api/v1/ovs/${c1}/interface/00000000-0000-0000-0000-000000000000/correlation`)).status,
    ).toBe(404);
  }, 60_000);

  test("error and drop deltas between reads on a bare switch database", async () => {
    await bare.vsctl(["add-br", "br0", "--", "add-port", "br0", "e0", "--", "add-port", "br0", "e1"]);
    await bare.vsctl([
      "set",
      "Interface",
      "e0",
      "statistics:rx_errors=1",
      "statistics:rx_dropped=0",
      "link_state=up",
    ]);
    await bare.vsctl(["set", "Interface", "e1", "statistics:tx_dropped=5", "link_state=down"]);
    type Member = {
      system_id: string;
      interfaces: number;
      down_interfaces: number;
      error_interfaces: number;
      drop_interfaces: number;
    };
    const member = async () =>
      ((await get("/api/v1/ovs/health")).body as { members: Member[] }).members.find(
        (m) => m.system_id === "bare-1",
      ) as Member;
    const cachedE1 = () =>
      clusters.defaultCluster.fleet?.members
        .get("bare-1")
        ?.client.cache.rows("Interface")
        .find((r) => r.name === "e1");
    // Each read of the health counts deltas since the one before, so the first read waits in the cache
    // for the last change made above (updates arrive in order; the link state may come after the rows).
    await eventually(async () => expect(cachedE1()?.link_state).toBe("down"));
    expect(await member()).toMatchObject({
      interfaces: 3,
      down_interfaces: 1,
      error_interfaces: 0,
      drop_interfaces: 0,
    });
    await bare.vsctl(["set", "Interface", "e0", "statistics:rx_errors=4"]);
    await bare.vsctl(["set", "Interface", "e1", "statistics:tx_dropped=6"]);
    await eventually(async () =>
      expect((cachedE1()?.statistics as Record<string, number> | undefined)?.tx_dropped).toBe(6),
    );
    expect(await member()).toMatchObject({ error_interfaces: 1, drop_interfaces: 1 });
    // No change since the previous read: no delta.
    expect(await member()).toMatchObject({ error_interfaces: 0, drop_interfaces: 0 });
    const health = (await get("/api/v1/ovs/health")).body as Record<string, number>;
    expect(health).toMatchObject({ chassis: 3, connected: 3, unreachable: 0 });
  }, 60_000);
});

describe("system routes", () => {
  test("health, readiness, capabilities, clusters, metrics, OpenAPI and the local docs UI", async () => {
    expect((await get("/healthz")).body).toEqual({ status: "ok" });
    expect((await get("/readyz")).status).toBe(200);
    const caps = (await get("/api/v1/capabilities")).body as { capabilities: string[]; mode: string };
    expect(caps.capabilities).toContain("ovs");
    expect(caps.mode).toBe("read-only");
    expect(((await get("/api/v1/clusters")).body as { name: string }[])[0]?.name).toBe("default");
    const metrics = await get("/metrics");
    expect(metrics.text).toContain('netview_ovsdb_authoritative{cluster="default",database="nb"} 1');
    expect(promtoolLint(metrics.text)).toBe("");
    const spec = (await get("/api/v1/openapi.json")).body as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(spec.openapi).toStartWith("3.1");
    expect(await openApiProblems(spec)).toEqual([]);
    expect(Object.keys(spec.paths)).toContain("/api/v1/nb/logical-switches/{uuid}");
    expect(Object.keys(spec.paths)).toContain("/api/v1/sb/chassis-inventory");
    const docs = await get("/api/v1/docs");
    expect(docs.text).toContain("/api/v1/docs/assets/swagger-ui-bundle.js");
    expect(docs.text).not.toMatch(/https?:\/\//);
    const asset = await app.handle(new Request("http://localhost/api/v1/docs/assets/swagger-ui-bundle.js"));
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  }, 60_000);
});

describe("faults", () => {
  test("a stopped chassis database is 503 for that chassis only", async () => {
    const [c1, c2] = ovn.chassis;
    if (c1 === undefined || c2 === undefined) throw new Error("chassis");
    await c2.db.stop();
    try {
      await eventually(async () =>
        expect((await get(`/api/v1/ovs/${c2.systemId}/bridge`)).body).toEqual({
          error: "chassis unreachable",
        }),
      );
      expect((await get(`/api/v1/ovs/${c2.systemId}/bridge`)).status).toBe(503);
      expect((await get(`/api/v1/ovs/${c1.systemId}/bridge`)).status).toBe(200);
      expect((await get("/api/v1/nb/logical-switches")).status).toBe(200);
      expect((await get("/api/v1/sb/chassis")).status).toBe(200);
      const health = (await get("/api/v1/ovs/health")).body as {
        unreachable: number;
        members: { system_id: string; connected: boolean; interfaces: number }[];
      };
      expect(health.unreachable).toBe(1);
      expect(health.members.find((m) => m.system_id === c2.systemId)).toMatchObject({
        connected: false,
        interfaces: 0,
      });
    } finally {
      await c2.db.start();
    }
    await eventually(async () => expect((await get(`/api/v1/ovs/${c2.systemId}/bridge`)).status).toBe(200));
  }, 60_000);

  test("restarting the NB server: stale header until the cache is authoritative again", async () => {
    await ovn.nb.stop();
    try {
      await eventually(async () => expect((await get("/api/v1/nb/logical-switches")).stale).toBe(true));
      const during = await get("/api/v1/nb/logical-switches");
      expect(during.status).toBe(200);
      expect((await get("/api/v1/nb/logical-switches/00000000-0000-0000-0000-000000000000")).stale).toBe(
        true,
      );
    } finally {
      await ovn.nb.start();
    }
    await eventually(async () => expect((await get("/api/v1/nb/logical-switches")).stale).toBe(false));
    expect((await get("/readyz")).status).toBe(200);
  }, 60_000);

  test("a large transaction is never served half-applied", async () => {
    const before = ((await get("/api/v1/nb/logical-switches")).body as Row[]).length;
    const args: string[] = [];
    for (let i = 0; i < 200; i++) args.push(...(i === 0 ? [] : ["--"]), "ls-add", `nv-bulk-${i}`);
    const seen = new Set<number>([before]);
    let done = false;
    const poll = (async () => {
      while (!done) {
        seen.add(((await get("/api/v1/nb/logical-switches")).body as Row[]).length);
        await Bun.sleep(1);
      }
    })();
    await ovn.nbctl(args);
    await eventually(async () =>
      expect(clusters.defaultCluster.nb.cache.count("Logical_Switch")).toBe(before + 200),
    );
    done = true;
    await poll;
    seen.add(((await get("/api/v1/nb/logical-switches")).body as Row[]).length);
    // Only the state before and the state after, never a count in between.
    expect([...seen].sort((a, b) => a - b)).toEqual([before, before + 200]);
  }, 60_000);
});
