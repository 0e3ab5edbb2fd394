import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { testUuid } from "../../../harness/netview/test-events.ts";
import { DatabaseCache } from "../ovsdb/database-cache.ts";
import { parseSchema } from "../ovsdb/schema.ts";
import { chassisDetail, chassisInventory, parseBridgeMappings } from "./chassis-inventory.ts";

const schema = parseSchema(JSON.parse(readFileSync("/usr/share/ovn/ovn-sb.ovsschema", "utf8")));
const u = testUuid;
const now = 1_000_000;

function sb(options: { reports?: boolean; privateRows?: Record<string, { nb_cfg: number; ts: number }> }) {
  const cache = new DatabaseCache("OVN_Southbound");
  const privateRows = options.privateRows ?? {};
  const update: Record<string, Record<string, unknown>> = {
    SB_Global: {
      [u(1)]: {
        initial: {
          nb_cfg: 5,
          options: ["map", options.reports === false ? [["enable_chassis_nb_cfg_update", "false"]] : []],
        },
      },
    },
    Encap: {
      [u(10)]: {
        initial: {
          type: "geneve",
          ip: "10.0.0.11",
          chassis_name: "hv1",
          options: ["map", [["csum", "true"]]],
        },
      },
    },
    Chassis: {
      [u(20)]: {
        initial: {
          name: "hv1",
          hostname: "host1",
          encaps: ["uuid", u(10)],
          other_config: ["map", [["ovn-bridge-mappings", "physnet1:br-ex,physnet2:br-vlan"]]],
        },
      },
      [u(21)]: { initial: { name: "hv2", hostname: "host2" } },
    },
    Chassis_Private: Object.fromEntries(
      Object.entries(privateRows).map(([name, r], i) => [
        u(30 + i),
        {
          initial: {
            name,
            nb_cfg: r.nb_cfg,
            nb_cfg_timestamp: r.ts,
            chassis: ["uuid", name === "hv1" ? u(20) : u(21)],
          },
        },
      ]),
    ),
    Datapath_Binding: { [u(40)]: { initial: { tunnel_key: 1, external_ids: ["map", [["name", "sw0"]]] } } },
    Port_Binding: {
      [u(50)]: {
        initial: {
          logical_port: "p0",
          datapath: ["uuid", u(40)],
          tunnel_key: 1,
          chassis: ["uuid", u(20)],
          up: true,
        },
      },
      [u(51)]: {
        initial: {
          logical_port: "p1",
          datapath: ["uuid", u(40)],
          tunnel_key: 2,
          chassis: ["uuid", u(20)],
          up: false,
          type: "localport",
        },
      },
      [u(52)]: { initial: { logical_port: "p2", datapath: ["uuid", u(40)], tunnel_key: 3 } },
    },
  };
  cache.replaceAll(schema, update);
  return cache;
}

const clock = (generationSinceMs: number | null = null) => ({
  nowMs: now,
  staleMs: 60_000,
  generationSinceMs,
});

describe("chassis inventory", () => {
  test("joins encaps, bridge mappings, Chassis_Private, SB_Global and port bindings", () => {
    const cache = sb({ privateRows: { hv1: { nb_cfg: 5, ts: now - 500 } } });
    const [hv1, hv2] = chassisInventory(cache, clock());
    expect(hv1).toMatchObject({
      name: "hv1",
      hostname: "host1",
      tunnel_endpoints: [{ type: "geneve", ip: "10.0.0.11", options: { csum: "true" } }],
      bridge_mappings: { physnet1: "br-ex", physnet2: "br-vlan" },
      nb_cfg: 5,
      global_nb_cfg: 5,
      in_sync: true,
      alive: true,
      age_ms: 500,
      lag_ms: 0,
      stale: false,
      sync_status: "in_sync",
      ports: { bound: 2, up: 1, down: 1, by_type: { vif: 1, localport: 1 } },
    });
    // No Chassis_Private row: neither in sync nor alive.
    expect(hv2).toMatchObject({
      name: "hv2",
      in_sync: false,
      alive: false,
      sync_status: "no_private_row",
      nb_cfg: null,
    });
    const detail = chassisDetail(cache, "hv1", clock());
    expect(detail?.bound_ports.map((p) => [p.logical_port, p.datapath_name, p.up])).toEqual([
      ["p0", "sw0", true],
      ["p1", "sw0", false],
    ]);
    expect(detail?.other_config).toEqual({ "ovn-bridge-mappings": "physnet1:br-ex,physnet2:br-vlan" });
    expect(chassisDetail(cache, "nope", clock())).toBeUndefined();
  });

  test("lagging within the threshold, stale beyond it, measured from the generation's start", () => {
    const cache = sb({ privateRows: { hv1: { nb_cfg: 4, ts: now - 3_600_000 } } });
    // The generation started 1 s ago: an hour-old report is lagging, not stale.
    expect(chassisInventory(cache, clock(now - 1000))[0]).toMatchObject({
      lag_ms: 1000,
      stale: false,
      sync_status: "lagging",
      alive: false,
    });
    expect(chassisInventory(cache, clock(now - 120_000))[0]).toMatchObject({
      stale: true,
      sync_status: "stale",
    });
    // Unknown generation start: from the chassis's own report.
    expect(chassisInventory(cache, clock(null))[0]).toMatchObject({ lag_ms: 3_600_000, stale: true });
  });

  test("chassis reports switched off: said so, nobody stale", () => {
    const cache = sb({ reports: false, privateRows: { hv1: { nb_cfg: 1, ts: now - 3_600_000 } } });
    expect(chassisInventory(cache, clock(null))[0]).toMatchObject({
      stale: false,
      sync_status: "reports_disabled",
      nb_cfg_reports_enabled: false,
    });
  });

  test("bridge mappings parse leniently", () => {
    expect(parseBridgeMappings("")).toEqual({});
    expect(parseBridgeMappings("a:b, c:d ,bad,:x")).toEqual({ a: "b", c: "d" });
  });
});
