/**
 * `GET /api/v1/export/topology`: the logical topology of a cluster as one self-contained document
 * (decision 361): switches with their ports, routers with theirs and their gateway chassis, the links
 * between router and switch ports, and the chassis, joined by name so it reads without the uuids.
 */
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { type Cluster, isStale } from "../cluster.ts";

const str = (v: unknown) => (typeof v === "string" ? v : "");
const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function rowsOf(cache: DatabaseCache, table: string, uuids: unknown): Row[] {
  return list(uuids)
    .map((u) => cache.get(table, u))
    .filter((r): r is Row => r !== undefined);
}

export function topologyExport(cluster: Cluster, exportedAt: string) {
  const nb = cluster.nb.cache;
  const sb = cluster.sb.cache;
  const chassisName = new Map(sb.rows("Chassis").map((c) => [c._uuid, str(c.name)]));
  const bindings = new Map(sb.rows("Port_Binding").map((b) => [str(b.logical_port), b]));
  const boundTo = (port: string) => {
    const chassis = bindings.get(port)?.chassis;
    return typeof chassis === "string" ? (chassisName.get(chassis) ?? null) : null;
  };
  const links: { switch: string; switch_port: string; router: string; router_port: string }[] = [];
  const routerOfPort = new Map<string, string>();
  for (const router of nb.rows("Logical_Router"))
    for (const p of rowsOf(nb, "Logical_Router_Port", router.ports))
      routerOfPort.set(str(p.name), str(router.name));
  const switches = nb.rows("Logical_Switch").map((sw) => ({
    uuid: sw._uuid,
    name: str(sw.name),
    ports: rowsOf(nb, "Logical_Switch_Port", sw.ports)
      .map((p) => {
        const peer = str((p.options as Record<string, string> | undefined)?.["router-port"]);
        if (str(p.type) === "router" && peer !== "") {
          links.push({
            switch: str(sw.name),
            switch_port: str(p.name),
            router: routerOfPort.get(peer) ?? "",
            router_port: peer,
          });
        }
        return {
          uuid: p._uuid,
          name: str(p.name),
          type: str(p.type),
          addresses: list(p.addresses),
          up: p.up === true,
          chassis: boundTo(str(p.name)),
        };
      })
      .sort(byName),
  }));
  const routers = nb.rows("Logical_Router").map((router) => ({
    uuid: router._uuid,
    name: str(router.name),
    ports: rowsOf(nb, "Logical_Router_Port", router.ports)
      .map((p) => ({
        uuid: p._uuid,
        name: str(p.name),
        mac: str(p.mac),
        networks: list(p.networks),
        gateway_chassis: rowsOf(nb, "Gateway_Chassis", p.gateway_chassis)
          .map((g) => ({ chassis: str(g.chassis_name), priority: Number(g.priority) }))
          .sort((a, b) => b.priority - a.priority),
        chassis: boundTo(`cr-${str(p.name)}`),
      }))
      .sort(byName),
    nat: rowsOf(nb, "NAT", router.nat).map((n) => ({
      type: str(n.type),
      external_ip: str(n.external_ip),
      logical_ip: str(n.logical_ip),
    })),
  }));
  const chassis = sb.rows("Chassis").map((c) => ({
    name: str(c.name),
    hostname: str(c.hostname),
    encaps: rowsOf(sb, "Encap", c.encaps).map((e) => ({ type: str(e.type), ip: str(e.ip) })),
  }));
  return {
    format: "netview-topology",
    version: 1,
    cluster: cluster.name,
    exported_at: exportedAt,
    stale: isStale(cluster),
    switches: switches.sort(byName),
    routers: routers.sort(byName),
    links: links.sort((a, b) => (a.switch_port < b.switch_port ? -1 : 1)),
    chassis: chassis.sort(byName),
  };
}
