/**
 * Impact analysis (`GET /api/v1/impact/{db}/{table}/{uuid}`): what depends on one NB or SB row. The
 * rows that reference it and the rows it references (from the schema's reference columns, so every
 * table is covered), and what a change to it would touch: the switch ports (and the chassis hosting
 * them) whose traffic it decides, the switches and routers, and the logical flows ovn-northd derived
 * from it (by their stage-hint, or on its datapath). Pure over the index (decision 333).
 */
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { ColumnValue, Row } from "../../ovsdb/datum.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { str, strMap, strs } from "../views/row-values.ts";
import { switchesOfRouterPorts } from "./segment.ts";

interface RowRef {
  db: "nb" | "sb";
  table: string;
  uuid: string;
  name: string | null;
  column: string;
}

export interface Impact {
  entity: { db: "nb" | "sb"; table: string; uuid: string; name: string | null };
  referenced_by: RowRef[];
  references: RowRef[];
  affected: {
    ports: string[];
    switches: string[];
    routers: string[];
    chassis: string[];
    logical_flows: number;
  };
}

const nameOf = (row: Row | undefined): string | null =>
  typeof row?.name === "string" ? row.name : typeof row?.logical_port === "string" ? row.logical_port : null;

function uuidsIn(v: ColumnValue | undefined): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.map(String);
  if (v !== null && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => [k, String(x)]);
  return [];
}

function refs(cache: DatabaseCache, db: "nb" | "sb", table: string, row: Row) {
  const schema = cache.schema;
  const referencedBy: RowRef[] = [];
  const references: RowRef[] = [];
  if (schema === undefined) return { referencedBy, references };
  for (const [column, c] of Object.entries(schema.tables[table]?.columns ?? {})) {
    const target = c.type.key.refTable ?? c.type.value?.refTable;
    if (target === undefined) continue;
    for (const uuid of uuidsIn(row[column])) {
      const other = cache.get(target, uuid);
      if (other !== undefined) references.push({ db, table: target, uuid, name: nameOf(other), column });
    }
  }
  for (const t of Object.values(schema.tables)) {
    const columns = Object.entries(t.columns).filter(
      ([, c]) => c.type.key.refTable === table || c.type.value?.refTable === table,
    );
    if (columns.length === 0) continue;
    for (const other of cache.rows(t.name))
      for (const [column] of columns)
        if (uuidsIn(other[column]).includes(row._uuid))
          referencedBy.push({ db, table: t.name, uuid: other._uuid, name: nameOf(other), column });
  }
  return { referencedBy, references };
}

/** The switch ports whose traffic the row decides. */
function portsOf(ix: NetworkIndex, table: string, row: Row): Row[] {
  const switchPorts = (ls: Row | undefined) => strs(ls?.ports).flatMap((p) => ix.lsp.get(p) ?? []);
  const groupPorts = (g: Row | undefined) => strs(g?.ports).flatMap((p) => ix.lsp.get(p) ?? []);
  const routerPorts = (lr: Row | undefined) => {
    const behind = switchesOfRouterPorts(ix);
    return strs(lr?.ports).flatMap((p) => switchPorts(behind.get(str(ix.lrp.get(p)?.name))));
  };
  switch (table) {
    case "Logical_Switch":
      return switchPorts(row);
    case "Logical_Switch_Port":
      return [row];
    case "Logical_Router":
      return routerPorts(row);
    case "Logical_Router_Port":
      return switchPorts(switchesOfRouterPorts(ix).get(str(row.name)));
    case "Port_Group":
      return groupPorts(row);
    case "ACL": {
      const owner = ix.aclOwner.get(row._uuid);
      return owner === undefined
        ? []
        : owner.kind === "port_group"
          ? groupPorts(owner.row)
          : switchPorts(owner.row);
    }
    case "Address_Set": {
      const used = new RegExp(`\\$${str(row.name).replace(/[^A-Za-z0-9_]/g, "")}\\b`);
      return ix.nb
        .rows("ACL")
        .filter((a) => used.test(str(a.match)))
        .flatMap((a) => portsOf(ix, "ACL", a));
    }
    case "Load_Balancer":
    case "NAT": {
      const owners =
        table === "NAT"
          ? [...ix.lr.values()].filter((lr) => strs(lr.nat).includes(row._uuid))
          : (ix.usersOfLb.get(row._uuid) ?? []);
      return owners.flatMap((o) => (ix.ls.has(o._uuid) ? switchPorts(o) : routerPorts(o)));
    }
    case "Chassis":
      return [...ix.pb.values()]
        .filter((pb) => pb.chassis === row._uuid)
        .flatMap((pb) => ix.lspByName.get(str(pb.logical_port)) ?? []);
    case "Port_Binding":
      return ix.lspByName.get(str(row.logical_port)) === undefined
        ? []
        : [ix.lspByName.get(str(row.logical_port)) as Row];
    case "Datapath_Binding": {
      const owner = ix.nbOfDatapath.get(row._uuid);
      return owner === undefined
        ? []
        : portsOf(ix, ix.ls.has(owner._uuid) ? "Logical_Switch" : "Logical_Router", owner);
    }
    default:
      return [];
  }
}

function flowCount(ix: NetworkIndex, db: "nb" | "sb", table: string, row: Row): number {
  const flows = ix.sb.rows("Logical_Flow");
  if (db === "sb" && table === "Datapath_Binding")
    return flows.filter((f) => f.logical_datapath === row._uuid).length;
  const dp = db === "nb" ? ix.datapathOf.get(row._uuid) : undefined;
  if (dp !== undefined) return flows.filter((f) => f.logical_datapath === dp._uuid).length;
  // ovn-northd marks the flows it derives from an NB row with the row's first 8 hex digits.
  const hint = row._uuid.slice(0, 8);
  return db === "nb" ? flows.filter((f) => strMap(f.external_ids)["stage-hint"] === hint).length : 0;
}

export function impact(ix: NetworkIndex, db: "nb" | "sb", table: string, uuid: string): Impact | undefined {
  const cache = db === "nb" ? ix.nb : ix.sb;
  const row = cache.get(table, uuid);
  if (row === undefined) return undefined;
  const { referencedBy, references } = refs(cache, db, table, row);
  const ports = [...new Map(portsOf(ix, table, row).map((p) => [p._uuid, p])).values()];
  const switches = new Set<string>();
  const routers = new Set<string>();
  const chassis = new Set<string>();
  const behind = switchesOfRouterPorts(ix);
  for (const p of ports) {
    const ls = ix.switchOfPort.get(p._uuid);
    if (ls !== undefined) switches.add(str(ls.name));
    const lrp = ix.lrpByName.get(strMap(p.options)["router-port"] ?? "");
    const lr = lrp === undefined ? undefined : ix.routerOfPort.get(lrp._uuid);
    if (lr !== undefined) routers.add(str(lr.name));
    const pb = ix.pbByName.get(str(p.name));
    const ch = typeof pb?.chassis === "string" ? ix.chassis.get(pb.chassis) : undefined;
    if (ch !== undefined) chassis.add(str(ch.name));
  }
  if (table === "Logical_Router") routers.add(str(row.name));
  if (table === "Logical_Router_Port") {
    const lr = ix.routerOfPort.get(row._uuid);
    if (lr !== undefined) routers.add(str(lr.name));
    const ls = behind.get(str(row.name));
    if (ls !== undefined) switches.add(str(ls.name));
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    entity: { db, table, uuid, name: nameOf(row) },
    referenced_by: referencedBy,
    references,
    affected: {
      ports: ports.map((p) => str(p.name)).sort(),
      switches: sorted(switches),
      routers: sorted(routers),
      chassis: sorted(chassis),
      logical_flows: flowCount(ix, db, table, row),
    },
  };
}
