/**
 * The correlated views: each NB or SB object with what a person debugging it needs beside it, from
 * the caches alone. A switch with its datapath, ports (each with its binding and chassis), ACLs
 * (its own and its port groups'), port groups, load balancers and routers; a router with its ports,
 * gateway chassis, NAT, routes, policies and load balancers; a port binding with its NB port, chassis
 * and MAC bindings; a chassis with its encaps, bound ports and gateway duties. Pure over the index
 * and the chassis inventory.
 */

import type { Row } from "../../ovsdb/datum.ts";
import type { InventoryEntry } from "../chassis-inventory.ts";
import type { NetworkIndex } from "./network-index.ts";
import { byName, num, optBool, optStr, str, strMap, strs } from "./row-values.ts";

export type Inventory = ReadonlyMap<string, InventoryEntry>;

const ref = (row: Row | undefined) => (row === undefined ? null : { uuid: row._uuid, name: str(row.name) });

function chassisRef(ix: NetworkIndex, inventory: Inventory, uuid: string | null) {
  if (uuid === null) return null;
  const row = ix.chassis.get(uuid);
  const name = str(row?.name);
  const entry = inventory.get(name);
  return {
    uuid,
    name,
    hostname: str(row?.hostname),
    alive: entry?.alive ?? false,
    sync_status: entry?.sync_status ?? "no_private_row",
    tunnel_ips: (ix.encapsOfChassis.get(name) ?? []).map((e) => str(e.ip)),
  };
}

function datapathRef(ix: NetworkIndex, nbUuid: string) {
  const dp = ix.datapathOf.get(nbUuid);
  return dp === undefined ? null : { uuid: dp._uuid, tunnel_key: num(dp.tunnel_key) };
}

function bindingOf(ix: NetworkIndex, inventory: Inventory, name: string) {
  const pb = ix.pbByName.get(name);
  if (pb === undefined) return null;
  return {
    uuid: pb._uuid,
    type: str(pb.type),
    tunnel_key: num(pb.tunnel_key),
    up: optBool(pb.up),
    chassis: chassisRef(ix, inventory, optStr(pb.chassis)),
    requested_chassis: chassisRef(ix, inventory, optStr(pb.requested_chassis)),
  };
}

function aclView(ix: NetworkIndex, acl: Row) {
  const owner = ix.aclOwner.get(acl._uuid);
  return {
    uuid: acl._uuid,
    name: optStr(acl.name),
    direction: str(acl.direction),
    priority: num(acl.priority),
    match: str(acl.match),
    action: str(acl.action),
    log: acl.log === true,
    scope:
      owner === undefined ? null : { kind: owner.kind, uuid: owner.row._uuid, name: str(owner.row.name) },
  };
}

/** The ACLs applying at a switch: its own and those of port groups with a port on it. */
function aclsOfSwitch(ix: NetworkIndex, ls: Row) {
  const acls = strs(ls.acls).flatMap((a) => ix.nb.get("ACL", a) ?? []);
  for (const g of groupsOfSwitch(ix, ls))
    acls.push(...strs(g.acls).flatMap((a) => ix.nb.get("ACL", a) ?? []));
  return acls
    .map((a) => aclView(ix, a))
    .sort((a, b) => b.priority - a.priority || (a.uuid < b.uuid ? -1 : 1));
}

function groupsOfSwitch(ix: NetworkIndex, ls: Row): Row[] {
  const seen = new Map<string, Row>();
  for (const p of strs(ls.ports)) for (const g of ix.groupsOfPort.get(p) ?? []) seen.set(g._uuid, g);
  return [...seen.values()];
}

function lbView(lb: Row) {
  return { uuid: lb._uuid, name: str(lb.name), protocol: optStr(lb.protocol), vips: strMap(lb.vips) };
}

function lspSummary(ix: NetworkIndex, inventory: Inventory, p: Row) {
  const options = strMap(p.options);
  return {
    uuid: p._uuid,
    name: str(p.name),
    type: str(p.type),
    addresses: strs(p.addresses),
    port_security: strs(p.port_security),
    enabled: optBool(p.enabled),
    up: optBool(p.up),
    router_port: options["router-port"] ?? null,
    binding: bindingOf(ix, inventory, str(p.name)),
  };
}

export function switchSummary(ix: NetworkIndex, ls: Row) {
  const ports = strs(ls.ports).flatMap((p) => ix.lsp.get(p) ?? []);
  const bindings = ports.map((p) => ix.pbByName.get(str(p.name)));
  return {
    uuid: ls._uuid,
    name: str(ls.name),
    datapath: datapathRef(ix, ls._uuid),
    ports: ports.length,
    bound_ports: bindings.filter((b) => typeof b?.chassis === "string").length,
    up_ports: bindings.filter((b) => b?.up === true).length,
    acls: aclsOfSwitch(ix, ls).length,
    load_balancers: (ix.lbsOf.get(ls._uuid) ?? []).length,
    routers: routersOfSwitch(ix, ls).map((r) => r.name),
    subnet: strMap(ls.other_config).subnet ?? null,
    external_ids: strMap(ls.external_ids),
  };
}

function routersOfSwitch(ix: NetworkIndex, ls: Row) {
  const out: { uuid: string; name: string; via_switch_port: string; router_port: string }[] = [];
  for (const p of strs(ls.ports).flatMap((u) => ix.lsp.get(u) ?? [])) {
    const rp = strMap(p.options)["router-port"];
    const lrp = rp === undefined ? undefined : ix.lrpByName.get(rp);
    const router = lrp === undefined ? undefined : ix.routerOfPort.get(lrp._uuid);
    if (router !== undefined)
      out.push({
        uuid: router._uuid,
        name: str(router.name),
        via_switch_port: str(p.name),
        router_port: rp ?? "",
      });
  }
  return out;
}

export function switchDetail(ix: NetworkIndex, inventory: Inventory, ls: Row) {
  const ports = strs(ls.ports).flatMap((p) => ix.lsp.get(p) ?? []);
  return {
    ...switchSummary(ix, ls),
    other_config: strMap(ls.other_config),
    port_list: ports.map((p) => lspSummary(ix, inventory, p)).sort(byName),
    acl_list: aclsOfSwitch(ix, ls),
    port_groups: groupsOfSwitch(ix, ls)
      .map((g) => ({
        uuid: g._uuid,
        name: str(g.name),
        ports: strs(g.ports)
          .flatMap((p) => (strs(ls.ports).includes(p) ? [str(ix.lsp.get(p)?.name)] : []))
          .sort(),
      }))
      .sort(byName),
    load_balancer_list: (ix.lbsOf.get(ls._uuid) ?? []).map(lbView).sort(byName),
    router_list: routersOfSwitch(ix, ls),
    dns_records: strs(ls.dns_records).map((d) => strMap(ix.nb.get("DNS", d)?.records)),
    qos_rules: strs(ls.qos_rules).length,
  };
}

export function switchPortDetail(ix: NetworkIndex, inventory: Inventory, p: Row) {
  const ls = ix.switchOfPort.get(p._uuid);
  const groups = ix.groupsOfPort.get(p._uuid) ?? [];
  const options = strMap(p.options);
  const lrp = options["router-port"] === undefined ? undefined : ix.lrpByName.get(options["router-port"]);
  const dhcp4 =
    typeof p.dhcpv4_options === "string" ? ix.nb.get("DHCP_Options", p.dhcpv4_options) : undefined;
  const pb = ix.pbByName.get(str(p.name));
  return {
    ...lspSummary(ix, inventory, p),
    switch: ref(ls),
    datapath: ls === undefined ? null : datapathRef(ix, ls._uuid),
    options,
    external_ids: strMap(p.external_ids),
    dynamic_addresses: optStr(p.dynamic_addresses),
    tag: typeof p.tag === "number" ? p.tag : null,
    parent_name: optStr(p.parent_name),
    port_groups: groups.map(ref),
    acls: [
      ...(ls === undefined ? [] : strs(ls.acls).flatMap((a) => ix.nb.get("ACL", a) ?? [])),
      ...groups.flatMap((g) => strs(g.acls).flatMap((a) => ix.nb.get("ACL", a) ?? [])),
    ]
      .map((a) => aclView(ix, a))
      .sort((a, b) => b.priority - a.priority),
    peer_router_port:
      lrp === undefined
        ? null
        : { uuid: lrp._uuid, name: str(lrp.name), router: ref(ix.routerOfPort.get(lrp._uuid)) },
    dhcpv4:
      dhcp4 === undefined
        ? null
        : { uuid: dhcp4._uuid, cidr: str(dhcp4.cidr), options: strMap(dhcp4.options) },
    mac_bindings: macBindingsOf(ix, str(p.name)),
    fdb: pb === undefined ? [] : fdbOf(ix, pb),
  };
}

function macBindingsOf(ix: NetworkIndex, logicalPort: string) {
  return ix.sb
    .rows("MAC_Binding")
    .filter((m) => str(m.logical_port) === logicalPort)
    .map((m) => ({ uuid: m._uuid, ip: str(m.ip), mac: str(m.mac), timestamp: num(m.timestamp) }));
}

function fdbOf(ix: NetworkIndex, pb: Row) {
  const dp = typeof pb.datapath === "string" ? ix.sb.get("Datapath_Binding", pb.datapath) : undefined;
  const dpKey = num(dp?.tunnel_key);
  return ix.sb
    .rows("FDB")
    .filter((f) => num(f.dp_key) === dpKey && num(f.port_key) === num(pb.tunnel_key))
    .map((f) => ({ uuid: f._uuid, mac: str(f.mac) }));
}

function gatewayView(ix: NetworkIndex, inventory: Inventory, lrp: Row) {
  const redirect = ix.redirectOfLrp.get(str(lrp.name));
  const active = optStr(redirect?.chassis);
  const activeName = active === null ? null : str(ix.chassis.get(active)?.name);
  return (ix.gatewaysOfLrp.get(lrp._uuid) ?? [])
    .map((g) => {
      const name = str(g.chassis_name);
      const entry = inventory.get(name);
      return {
        chassis: name,
        priority: num(g.priority),
        registered: ix.chassisByName.has(name),
        alive: entry?.alive ?? false,
        active: name === activeName,
      };
    })
    .sort((a, b) => b.priority - a.priority);
}

function routerPortSummary(ix: NetworkIndex, inventory: Inventory, p: Row) {
  const peerLsp = [...ix.lsp.values()].find((l) => strMap(l.options)["router-port"] === str(p.name));
  const redirect = ix.redirectOfLrp.get(str(p.name));
  return {
    uuid: p._uuid,
    name: str(p.name),
    mac: str(p.mac),
    networks: strs(p.networks),
    enabled: optBool(p.enabled),
    peer: optStr(p.peer),
    switch:
      peerLsp === undefined
        ? null
        : { ...ref(ix.switchOfPort.get(peerLsp._uuid)), switch_port: str(peerLsp.name) },
    gateway_chassis: gatewayView(ix, inventory, p),
    active_chassis: redirect === undefined ? null : chassisRef(ix, inventory, optStr(redirect.chassis)),
  };
}

export function routerSummary(ix: NetworkIndex, lr: Row) {
  return {
    uuid: lr._uuid,
    name: str(lr.name),
    datapath: datapathRef(ix, lr._uuid),
    ports: strs(lr.ports).length,
    nat: strs(lr.nat).length,
    static_routes: strs(lr.static_routes).length,
    policies: strs(lr.policies).length,
    load_balancers: (ix.lbsOf.get(lr._uuid) ?? []).length,
    gateway_router_chassis: strMap(lr.options).chassis ?? null,
    external_ids: strMap(lr.external_ids),
  };
}

export function routerDetail(ix: NetworkIndex, inventory: Inventory, lr: Row) {
  return {
    ...routerSummary(ix, lr),
    options: strMap(lr.options),
    port_list: strs(lr.ports)
      .flatMap((p) => ix.lrp.get(p) ?? [])
      .map((p) => routerPortSummary(ix, inventory, p))
      .sort(byName),
    nat_list: strs(lr.nat)
      .flatMap((n) => ix.nb.get("NAT", n) ?? [])
      .map((n) => ({
        uuid: n._uuid,
        type: str(n.type),
        external_ip: str(n.external_ip),
        logical_ip: str(n.logical_ip),
        external_mac: optStr(n.external_mac),
        logical_port: optStr(n.logical_port),
        gateway_port: optStr(n.gateway_port),
      })),
    static_route_list: strs(lr.static_routes)
      .flatMap((r) => ix.nb.get("Logical_Router_Static_Route", r) ?? [])
      .map((r) => ({
        uuid: r._uuid,
        ip_prefix: str(r.ip_prefix),
        nexthop: str(r.nexthop),
        output_port: optStr(r.output_port),
        policy: optStr(r.policy),
        route_table: str(r.route_table),
      })),
    policy_list: strs(lr.policies)
      .flatMap((r) => ix.nb.get("Logical_Router_Policy", r) ?? [])
      .map((r) => ({
        uuid: r._uuid,
        priority: num(r.priority),
        match: str(r.match),
        action: str(r.action),
        nexthops: strs(r.nexthops),
      }))
      .sort((a, b) => b.priority - a.priority),
    load_balancer_list: (ix.lbsOf.get(lr._uuid) ?? []).map(lbView).sort(byName),
  };
}

export function routerPortDetail(ix: NetworkIndex, inventory: Inventory, p: Row) {
  const router = ix.routerOfPort.get(p._uuid);
  return {
    ...routerPortSummary(ix, inventory, p),
    router: ref(router),
    datapath: router === undefined ? null : datapathRef(ix, router._uuid),
    options: strMap(p.options),
    external_ids: strMap(p.external_ids),
    binding: bindingOf(ix, inventory, str(p.name)),
    mac_bindings: macBindingsOf(ix, str(p.name)),
    nat:
      router === undefined
        ? []
        : strs(router.nat)
            .flatMap((n) => ix.nb.get("NAT", n) ?? [])
            .filter((n) => n.gateway_port === null || n.gateway_port === p._uuid)
            .map((n) => ({
              type: str(n.type),
              external_ip: str(n.external_ip),
              logical_ip: str(n.logical_ip),
            })),
  };
}

export function portBindingDetail(ix: NetworkIndex, inventory: Inventory, pb: Row) {
  const name = str(pb.logical_port);
  const lsp = ix.lspByName.get(name);
  const lrp = ix.lrpByName.get(name);
  const dp = typeof pb.datapath === "string" ? ix.sb.get("Datapath_Binding", pb.datapath) : undefined;
  const owner = dp === undefined ? undefined : ix.nbOfDatapath.get(dp._uuid);
  return {
    uuid: pb._uuid,
    logical_port: name,
    type: str(pb.type),
    tunnel_key: num(pb.tunnel_key),
    up: optBool(pb.up),
    mac: strs(pb.mac),
    port_security: strs(pb.port_security),
    options: strMap(pb.options),
    external_ids: strMap(pb.external_ids),
    datapath:
      dp === undefined
        ? null
        : {
            uuid: dp._uuid,
            tunnel_key: num(dp.tunnel_key),
            name: strMap(dp.external_ids).name ?? null,
            nb: ref(owner),
          },
    chassis: chassisRef(ix, inventory, optStr(pb.chassis)),
    requested_chassis: chassisRef(ix, inventory, optStr(pb.requested_chassis)),
    nb_port:
      lsp !== undefined
        ? { kind: "logical_switch_port", ...ref(lsp) }
        : lrp !== undefined
          ? { kind: "logical_router_port", ...ref(lrp) }
          : null,
    mac_bindings: macBindingsOf(ix, name),
    fdb: fdbOf(ix, pb),
  };
}

export function chassisSummary(ix: NetworkIndex, inventory: Inventory, chassis: Row) {
  const name = str(chassis.name);
  const entry = inventory.get(name);
  return {
    uuid: chassis._uuid,
    name,
    hostname: str(chassis.hostname),
    alive: entry?.alive ?? false,
    in_sync: entry?.in_sync ?? false,
    sync_status: entry?.sync_status ?? "no_private_row",
    encaps: (ix.encapsOfChassis.get(name) ?? []).map((e) => ({ type: str(e.type), ip: str(e.ip) })),
    bound_ports: [...ix.pb.values()].filter((p) => p.chassis === chassis._uuid).length,
  };
}

export function chassisDetailView(ix: NetworkIndex, inventory: Inventory, chassis: Row) {
  const duties: { router_port: string; router: string | null; priority: number; active: boolean }[] = [];
  for (const [lrpUuid, gateways] of ix.gatewaysOfLrp) {
    const lrp = ix.lrp.get(lrpUuid);
    const g = gateways.find((x) => str(x.chassis_name) === str(chassis.name));
    if (lrp === undefined || g === undefined) continue;
    const redirect = ix.redirectOfLrp.get(str(lrp.name));
    duties.push({
      router_port: str(lrp.name),
      router: ref(ix.routerOfPort.get(lrp._uuid))?.name ?? null,
      priority: num(g.priority),
      active: redirect?.chassis === chassis._uuid,
    });
  }
  return {
    ...chassisSummary(ix, inventory, chassis),
    other_config: strMap(chassis.other_config),
    external_ids: strMap(chassis.external_ids),
    bound_port_list: [...ix.pb.values()]
      .filter((p) => p.chassis === chassis._uuid)
      .map((p) => {
        const dp = typeof p.datapath === "string" ? ix.sb.get("Datapath_Binding", p.datapath) : undefined;
        return {
          uuid: p._uuid,
          logical_port: str(p.logical_port),
          type: str(p.type),
          up: optBool(p.up),
          datapath: strMap(dp?.external_ids).name ?? null,
        };
      })
      .sort((a, b) => (a.logical_port < b.logical_port ? -1 : 1)),
    gateway_duties: duties.sort((a, b) => (a.router_port < b.router_port ? -1 : 1)),
  };
}
