/**
 * The topology views: the logical network as a graph (switches, routers, their ports, the links
 * between them through patch ports, localnet ports to physical networks, and the chassis that host
 * ports), the gateways (distributed gateway ports and gateway routers with their chassis by priority
 * and the active one), NAT, and load balancers with their backends, users and health. Pure.
 */

import type { Row } from "../../ovsdb/datum.ts";
import type { Inventory } from "./correlated.ts";
import type { NetworkIndex } from "./network-index.ts";
import { byName, num, optStr, str, strMap, strs } from "./row-values.ts";

/** A switch or router as a node of the graph: its name, its SB datapath's tunnel key, its port count. */
function datapathNode(ix: NetworkIndex, row: Row) {
  const datapath = ix.datapathOf.get(row._uuid);
  return {
    uuid: row._uuid,
    name: str(row.name),
    tunnel_key: datapath === undefined ? null : num(datapath.tunnel_key),
    ports: strs(row.ports).length,
  };
}

export function topology(ix: NetworkIndex, inventory: Inventory) {
  const switches = [...ix.ls.values()].map((ls) => datapathNode(ix, ls));
  const routers = [...ix.lr.values()].map((lr) => ({
    ...datapathNode(ix, lr),
    gateway_chassis: strMap(lr.options).chassis ?? null,
  }));
  const ports: {
    uuid: string;
    name: string;
    kind: string;
    type: string;
    owner: string;
    chassis: string | null;
    up: boolean | null;
    /** A switch port's addresses column; a router port's `mac` and `networks`. */
    addresses: string[];
    mac: string | null;
    networks: string[];
  }[] = [];
  const links: {
    kind: string;
    from: { type: string; uuid: string; name: string };
    to: { type: string; uuid: string; name: string };
    via: string[];
  }[] = [];
  const chassisName = (name: string) => {
    const pb = ix.pbByName.get(name);
    return typeof pb?.chassis === "string" ? str(ix.chassis.get(pb.chassis)?.name) || null : null;
  };
  for (const p of ix.lsp.values()) {
    const ls = ix.switchOfPort.get(p._uuid);
    const pb = ix.pbByName.get(str(p.name));
    ports.push({
      uuid: p._uuid,
      name: str(p.name),
      kind: "logical_switch_port",
      type: str(p.type),
      owner: ls?._uuid ?? "",
      chassis: chassisName(str(p.name)),
      up: typeof pb?.up === "boolean" ? pb.up : null,
      addresses: strs(p.addresses),
      mac: null,
      networks: [],
    });
    const options = strMap(p.options);
    const lrp = options["router-port"] === undefined ? undefined : ix.lrpByName.get(options["router-port"]);
    const lr = lrp === undefined ? undefined : ix.routerOfPort.get(lrp._uuid);
    if (ls !== undefined && lr !== undefined && lrp !== undefined)
      links.push({
        kind: "switch-router",
        from: { type: "logical_switch", uuid: ls._uuid, name: str(ls.name) },
        to: { type: "logical_router", uuid: lr._uuid, name: str(lr.name) },
        via: [str(p.name), str(lrp.name)],
      });
    if (ls !== undefined && str(p.type) === "localnet")
      links.push({
        kind: "switch-physical",
        from: { type: "logical_switch", uuid: ls._uuid, name: str(ls.name) },
        to: { type: "physical_network", uuid: "", name: options.network_name ?? "" },
        via: [str(p.name)],
      });
  }
  for (const p of ix.lrp.values()) {
    const lr = ix.routerOfPort.get(p._uuid);
    ports.push({
      uuid: p._uuid,
      name: str(p.name),
      kind: "logical_router_port",
      type: "",
      owner: lr?._uuid ?? "",
      chassis: chassisName(`cr-${str(p.name)}`),
      up: null,
      addresses: [],
      mac: str(p.mac),
      networks: strs(p.networks),
    });
    const peer = optStr(p.peer);
    const other = peer === null ? undefined : ix.lrpByName.get(peer);
    const otherRouter = other === undefined ? undefined : ix.routerOfPort.get(other._uuid);
    if (lr !== undefined && otherRouter !== undefined && str(p.name) < (peer ?? ""))
      links.push({
        kind: "router-router",
        from: { type: "logical_router", uuid: lr._uuid, name: str(lr.name) },
        to: { type: "logical_router", uuid: otherRouter._uuid, name: str(otherRouter.name) },
        via: [str(p.name), peer ?? ""],
      });
  }
  const chassis = [...ix.chassis.values()].map((c) => {
    const bound = [...ix.pb.values()]
      .filter((pb) => pb.chassis === c._uuid)
      .map((pb) => str(pb.logical_port))
      .sort();
    return {
      uuid: c._uuid,
      name: str(c.name),
      hostname: str(c.hostname),
      alive: inventory.get(str(c.name))?.alive ?? false,
      encaps: (ix.encapsOfChassis.get(str(c.name)) ?? []).map((e) => ({ type: str(e.type), ip: str(e.ip) })),
      ports: bound,
    };
  });
  return {
    switches: switches.sort(byName),
    routers: routers.sort(byName),
    ports: ports.sort(byName),
    links,
    chassis: chassis.sort(byName),
  };
}

export function gatewayTopology(ix: NetworkIndex, inventory: Inventory) {
  const gatewayPorts = [...ix.gatewaysOfLrp.entries()].map(([lrpUuid, rows]) => {
    const lrp = ix.lrp.get(lrpUuid);
    const lr = lrp === undefined ? undefined : ix.routerOfPort.get(lrpUuid);
    const redirect = ix.redirectOfLrp.get(str(lrp?.name));
    const active = typeof redirect?.chassis === "string" ? str(ix.chassis.get(redirect.chassis)?.name) : null;
    return {
      router_port: { uuid: lrpUuid, name: str(lrp?.name), networks: strs(lrp?.networks) },
      router: lr === undefined ? null : { uuid: lr._uuid, name: str(lr.name) },
      ha_chassis_group:
        typeof lrp?.ha_chassis_group === "string"
          ? str(ix.nb.get("HA_Chassis_Group", lrp.ha_chassis_group)?.name)
          : null,
      chassisredirect_port: redirect === undefined ? null : str(redirect.logical_port),
      active_chassis: active,
      chassis: rows
        .map((g) => ({
          name: str(g.chassis_name),
          priority: num(g.priority),
          registered: ix.chassisByName.has(str(g.chassis_name)),
          alive: inventory.get(str(g.chassis_name))?.alive ?? false,
          active: str(g.chassis_name) === active,
        }))
        .sort((a, b) => b.priority - a.priority),
    };
  });
  const gatewayRouters = [...ix.lr.values()]
    .filter((lr) => strMap(lr.options).chassis !== undefined)
    .map((lr) => {
      const name = strMap(lr.options).chassis ?? "";
      return {
        router: { uuid: lr._uuid, name: str(lr.name) },
        chassis: name,
        registered: ix.chassisByName.has(name),
        alive: inventory.get(name)?.alive ?? false,
      };
    });
  const haGroups = ix.nb.rows("HA_Chassis_Group").map((g) => {
    const members = strs(g.ha_chassis).flatMap((h) => ix.nb.get("HA_Chassis", h) ?? []);
    const sbGroup = ix.sb.rows("HA_Chassis_Group").find((x) => str(x.name) === str(g.name));
    const users = [...ix.lrp.values()].filter((p) => p.ha_chassis_group === g._uuid).map((p) => str(p.name));
    const alive = members
      .filter((m) => inventory.get(str(m.chassis_name))?.alive === true)
      .sort((a, b) => num(b.priority) - num(a.priority));
    return {
      uuid: g._uuid,
      name: str(g.name),
      sb_uuid: sbGroup?._uuid ?? null,
      used_by: users.sort(),
      active_chassis: alive[0] === undefined ? null : str(alive[0].chassis_name),
      chassis: members
        .map((m) => ({
          name: str(m.chassis_name),
          priority: num(m.priority),
          alive: inventory.get(str(m.chassis_name))?.alive ?? false,
        }))
        .sort((a, b) => b.priority - a.priority),
    };
  });
  return {
    gateway_ports: gatewayPorts.sort((a, b) => (a.router_port.name < b.router_port.name ? -1 : 1)),
    gateway_routers: gatewayRouters,
    ha_chassis_groups: haGroups.sort(byName),
  };
}

export function natTopology(ix: NetworkIndex) {
  const out = [];
  for (const lr of ix.lr.values()) {
    const gateways = [...ix.gatewaysOfLrp.keys()]
      .filter((u) => ix.routerOfPort.get(u) === lr)
      .map((u) => str(ix.lrp.get(u)?.name));
    for (const n of strs(lr.nat).flatMap((u) => ix.nb.get("NAT", u) ?? [])) {
      const distributed = optStr(n.external_mac) !== null && optStr(n.logical_port) !== null;
      const gatewayPort =
        typeof n.gateway_port === "string" ? str(ix.lrp.get(n.gateway_port)?.name) : (gateways[0] ?? null);
      const redirect = gatewayPort === null ? undefined : ix.redirectOfLrp.get(gatewayPort);
      const logicalPort = optStr(n.logical_port);
      const hosted =
        distributed && logicalPort !== null ? ix.pbByName.get(logicalPort)?.chassis : redirect?.chassis;
      out.push({
        uuid: n._uuid,
        router: { uuid: lr._uuid, name: str(lr.name) },
        type: str(n.type),
        external_ip: str(n.external_ip),
        logical_ip: str(n.logical_ip),
        external_mac: optStr(n.external_mac),
        logical_port: logicalPort,
        external_port_range: str(n.external_port_range),
        gateway_port: gatewayPort,
        distributed,
        chassis:
          typeof hosted === "string"
            ? str(ix.chassis.get(hosted)?.name)
            : (strMap(lr.options).chassis ?? null),
      });
    }
  }
  return out.sort((a, b) =>
    a.router.name < b.router.name
      ? -1
      : a.router.name > b.router.name
        ? 1
        : a.external_ip < b.external_ip
          ? -1
          : 1,
  );
}

export function loadBalancerTopology(ix: NetworkIndex) {
  const monitors = ix.sb.rows("Service_Monitor");
  return ix.nb
    .rows("Load_Balancer")
    .map((lb) => ({
      uuid: lb._uuid,
      name: str(lb.name),
      protocol: optStr(lb.protocol),
      vips: Object.entries(strMap(lb.vips)).map(([vip, backends]) => ({
        vip,
        backends: backends
          .split(",")
          .filter((b) => b !== "")
          .map((b) => {
            const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(b.trim());
            const ip = m?.[1] ?? b;
            const port = m?.[2] === undefined ? null : Number(m[2]);
            const monitor = monitors.find((x) => str(x.ip) === ip && (port === null || num(x.port) === port));
            return {
              backend: b.trim(),
              ip,
              port,
              status: monitor === undefined ? null : optStr(monitor.status),
            };
          }),
      })),
      health_checks: strs(lb.health_check).length,
      used_by: (ix.usersOfLb.get(lb._uuid) ?? []).map((o) => ({
        kind: ix.ls.has(o._uuid) ? "logical_switch" : "logical_router",
        uuid: o._uuid,
        name: str(o.name),
      })),
      options: strMap(lb.options),
    }))
    .sort(byName);
}
