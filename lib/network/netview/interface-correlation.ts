/**
 * Correlates one live switch interface with the southbound port binding it implements, through its
 * `external_ids:iface-id` (the logical port name ovn-controller binds). Reads the SB cache only.
 */
import type { DatabaseCache } from "../ovsdb/database-cache.ts";
import type { Row } from "../ovsdb/datum.ts";

interface Correlation {
  interface: string;
  iface_id: string | null;
  bound: boolean;
  logical_port: string | null;
  port_binding: string | null;
  up: boolean | null;
  datapath: string | null;
  /** The datapath's `external_ids:name` (the NB switch or router name), when ovn-northd set it. */
  datapath_name: string | null;
  chassis: string | null;
  /** The system-id (Chassis.name) the SB says the port is bound to. */
  chassis_name: string | null;
  bound_here: boolean;
  /** The SB reports the port up while the live interface is down or erroring. */
  drift: boolean;
}

function mapValue(row: Row | undefined, column: string, key: string): string | null {
  const map = row?.[column];
  if (map === null || map === undefined || typeof map !== "object" || Array.isArray(map)) return null;
  const value = map[key];
  return typeof value === "string" ? value : null;
}

/**
 * Port bindings by logical port, built once per SB cache version: a chassis with hundreds of
 * interfaces is correlated one request each, and a scan copied every binding per request.
 */
const bindingsByPort = new WeakMap<DatabaseCache, { version: number; byPort: Map<unknown, Row> }>();

function bindingOf(sb: DatabaseCache, logicalPort: string): Row | undefined {
  let memo = bindingsByPort.get(sb);
  if (memo?.version !== sb.version) {
    memo = {
      version: sb.version,
      byPort: new Map(sb.rows("Port_Binding").map((pb) => [pb.logical_port, pb])),
    };
    bindingsByPort.set(sb, memo);
  }
  return memo.byPort.get(logicalPort);
}

/** `errorsIncreased`: whether the fleet saw this interface's error counters grow since the last read. */
export function correlateInterface(
  iface: Row,
  systemId: string,
  sb: DatabaseCache,
  errorsIncreased: boolean,
): Correlation {
  const ifaceId = mapValue(iface, "external_ids", "iface-id");
  const unbound: Correlation = {
    interface: iface._uuid,
    iface_id: ifaceId,
    bound: false,
    logical_port: null,
    port_binding: null,
    up: null,
    datapath: null,
    datapath_name: null,
    chassis: null,
    chassis_name: null,
    bound_here: false,
    drift: false,
  };
  if (ifaceId === null) return unbound;
  const binding = bindingOf(sb, ifaceId);
  if (binding === undefined) return unbound;
  const chassisUuid = typeof binding.chassis === "string" ? binding.chassis : null;
  const chassis = chassisUuid === null ? undefined : sb.get("Chassis", chassisUuid);
  const datapathUuid = typeof binding.datapath === "string" ? binding.datapath : null;
  const datapath = datapathUuid === null ? undefined : sb.get("Datapath_Binding", datapathUuid);
  const up = typeof binding.up === "boolean" ? binding.up : null;
  const chassisName = typeof chassis?.name === "string" ? chassis.name : null;
  const linkDown = iface.link_state === "down" || iface.admin_state === "down";
  return {
    ...unbound,
    bound: true,
    logical_port: ifaceId,
    port_binding: binding._uuid,
    up,
    datapath: datapathUuid,
    datapath_name: mapValue(datapath, "external_ids", "name"),
    chassis: chassisUuid,
    chassis_name: chassisName,
    bound_here: chassisName === systemId,
    drift: up === true && (linkDown || errorsIncreased),
  };
}
