/**
 * Who references whom across a cluster's NB and SB caches, built once per pair of cache versions:
 * the owner of every switch and router port, the SB datapath and binding of every NB object, the
 * chassis of every binding, the ACLs, port groups, load balancers and NATs around each object. The
 * correlated views, topology, search and debug analyses read it instead of scanning tables per call.
 */
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { byUuid, groupBy, str, strMap, strs } from "./row-values.ts";

export interface NetworkIndex {
  nb: DatabaseCache;
  sb: DatabaseCache;
  ls: Map<string, Row>;
  lsp: Map<string, Row>;
  lr: Map<string, Row>;
  lrp: Map<string, Row>;
  lspByName: Map<string, Row>;
  lrpByName: Map<string, Row>;
  /** Switch of each LSP, router of each LRP (by port uuid). */
  switchOfPort: Map<string, Row>;
  routerOfPort: Map<string, Row>;
  /** Switch or port group holding each ACL (by ACL uuid). */
  aclOwner: Map<string, { kind: "logical_switch" | "port_group"; row: Row }>;
  /** Port groups containing each LSP (by LSP uuid). */
  groupsOfPort: Map<string, Row[]>;
  /** Load balancers of each switch/router, direct and through load balancer groups (by uuid). */
  lbsOf: Map<string, Row[]>;
  /** Switches and routers using each load balancer (by LB uuid). */
  usersOfLb: Map<string, Row[]>;
  /** SB datapath of each NB switch or router (by NB uuid), and back. */
  datapathOf: Map<string, Row>;
  nbOfDatapath: Map<string, Row>;
  pb: Map<string, Row>;
  pbByName: Map<string, Row>;
  pbsOfDatapath: Map<string, Row[]>;
  chassis: Map<string, Row>;
  chassisByName: Map<string, Row>;
  privateByName: Map<string, Row>;
  encapsOfChassis: Map<string, Row[]>;
  /** NB Gateway_Chassis of each LRP (by LRP uuid), with its HA chassis group's members. */
  gatewaysOfLrp: Map<string, Row[]>;
  /** SB chassisredirect binding of each distributed gateway port (by LRP name). */
  redirectOfLrp: Map<string, Row>;
}

const memo = new WeakMap<
  DatabaseCache,
  { nbVersion: number; sbVersion: number; sb: DatabaseCache; index: NetworkIndex }
>();

export function networkIndex(nb: DatabaseCache, sb: DatabaseCache): NetworkIndex {
  const hit = memo.get(nb);
  if (hit !== undefined && hit.sb === sb && hit.nbVersion === nb.version && hit.sbVersion === sb.version)
    return hit.index;
  const index = build(nb, sb);
  memo.set(nb, { nbVersion: nb.version, sbVersion: sb.version, sb, index });
  return index;
}

function build(nb: DatabaseCache, sb: DatabaseCache): NetworkIndex {
  const ls = byUuid(nb.rows("Logical_Switch"));
  const lsp = byUuid(nb.rows("Logical_Switch_Port"));
  const lr = byUuid(nb.rows("Logical_Router"));
  const lrp = byUuid(nb.rows("Logical_Router_Port"));
  const switchOfPort = new Map<string, Row>();
  for (const s of ls.values()) for (const p of strs(s.ports)) switchOfPort.set(p, s);
  const routerOfPort = new Map<string, Row>();
  for (const r of lr.values()) for (const p of strs(r.ports)) routerOfPort.set(p, r);
  const aclOwner = new Map<string, { kind: "logical_switch" | "port_group"; row: Row }>();
  for (const s of ls.values())
    for (const a of strs(s.acls)) aclOwner.set(a, { kind: "logical_switch", row: s });
  const groupsOfPort = new Map<string, Row[]>();
  for (const g of nb.rows("Port_Group")) {
    for (const a of strs(g.acls)) aclOwner.set(a, { kind: "port_group", row: g });
    for (const p of strs(g.ports)) groupsOfPort.set(p, [...(groupsOfPort.get(p) ?? []), g]);
  }
  const lbById = byUuid(nb.rows("Load_Balancer"));
  const lbGroups = byUuid(nb.rows("Load_Balancer_Group"));
  const lbsOf = new Map<string, Row[]>();
  const usersOfLb = new Map<string, Row[]>();
  for (const owner of [...ls.values(), ...lr.values()]) {
    const ids = new Set(strs(owner.load_balancer));
    for (const g of strs(owner.load_balancer_group))
      for (const id of strs(lbGroups.get(g)?.load_balancer)) ids.add(id);
    const lbs = [...ids].flatMap((id) => lbById.get(id) ?? []);
    lbsOf.set(owner._uuid, lbs);
    for (const lb of lbs) usersOfLb.set(lb._uuid, [...(usersOfLb.get(lb._uuid) ?? []), owner]);
  }
  const datapathOf = new Map<string, Row>();
  const nbOfDatapath = new Map<string, Row>();
  for (const dp of sb.rows("Datapath_Binding")) {
    const ids = strMap(dp.external_ids);
    const nbUuid = ids["logical-switch"] ?? ids["logical-router"];
    if (nbUuid === undefined) continue;
    datapathOf.set(nbUuid, dp);
    const owner = ls.get(nbUuid) ?? lr.get(nbUuid);
    if (owner !== undefined) nbOfDatapath.set(dp._uuid, owner);
  }
  const pbRows = sb.rows("Port_Binding");
  const chassisRows = sb.rows("Chassis");
  const gateways = byUuid(nb.rows("Gateway_Chassis"));
  const haGroups = byUuid(nb.rows("HA_Chassis_Group"));
  const haChassis = byUuid(nb.rows("HA_Chassis"));
  const gatewaysOfLrp = new Map<string, Row[]>();
  for (const p of lrp.values()) {
    const rows = strs(p.gateway_chassis).flatMap((g) => gateways.get(g) ?? []);
    const group = typeof p.ha_chassis_group === "string" ? haGroups.get(p.ha_chassis_group) : undefined;
    for (const h of strs(group?.ha_chassis)) {
      const row = haChassis.get(h);
      if (row !== undefined) rows.push(row);
    }
    if (rows.length > 0) gatewaysOfLrp.set(p._uuid, rows);
  }
  const redirectOfLrp = new Map<string, Row>();
  for (const pb of pbRows) {
    if (str(pb.type) === "chassisredirect") {
      const distributed = strMap(pb.options)["distributed-port"];
      if (distributed !== undefined) redirectOfLrp.set(distributed, pb);
    }
  }
  return {
    nb,
    sb,
    ls,
    lsp,
    lr,
    lrp,
    lspByName: new Map([...lsp.values()].map((r) => [str(r.name), r])),
    lrpByName: new Map([...lrp.values()].map((r) => [str(r.name), r])),
    switchOfPort,
    routerOfPort,
    aclOwner,
    groupsOfPort,
    lbsOf,
    usersOfLb,
    datapathOf,
    nbOfDatapath,
    pb: byUuid(pbRows),
    pbByName: new Map(pbRows.map((r) => [str(r.logical_port), r])),
    pbsOfDatapath: groupBy(pbRows, (r) => (typeof r.datapath === "string" ? r.datapath : undefined)),
    chassis: byUuid(chassisRows),
    chassisByName: new Map(chassisRows.map((r) => [str(r.name), r])),
    privateByName: new Map(sb.rows("Chassis_Private").map((r) => [str(r.name), r])),
    encapsOfChassis: groupBy(sb.rows("Encap"), (r) => str(r.chassis_name) || undefined),
    gatewaysOfLrp,
    redirectOfLrp,
  };
}
