/**
 * Failover and evacuation of gateways (decision 357), from the NB cache: a router port's
 * Gateway_Chassis rows or an HA_Chassis_Group's HA_Chassis rows, where the member with the highest
 * priority is active (as `ovn-nbctl lrp-get-gateway-chassis` lists them). Moving a gateway swaps the
 * priorities of the active member and the target, so nothing but those two rows changes.
 */

import { compare } from "../../../foundation/collections/compare.ts";
import { ConflictError, NotFoundError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { PlannedChange } from "./plan.ts";

type Lookup = {
  get(table: string, uuid: string): Row | undefined;
  rows(table: string): Row[];
};

interface GatewayMember {
  uuid: string;
  chassis: string;
  priority: number;
}

interface GatewayGroup {
  /** `router_port` for Gateway_Chassis, `ha_chassis_group` for HA_Chassis. */
  kind: "router_port" | "ha_chassis_group";
  name: string;
  uuid: string;
  table: "Gateway_Chassis" | "HA_Chassis";
  /** Highest priority first (then by chassis name): the first is active. */
  members: GatewayMember[];
}

const maxPriority = 32767;

function membersOf(nb: Lookup, table: GatewayGroup["table"], uuids: unknown): GatewayMember[] {
  const members = (Array.isArray(uuids) ? uuids : [])
    .map((uuid) => nb.get(table, String(uuid)))
    .filter((row): row is Row => row !== undefined)
    .map((row) => ({ uuid: row._uuid, chassis: String(row.chassis_name), priority: Number(row.priority) }));
  return members.sort((a, b) => b.priority - a.priority || compare(a.chassis, b.chassis));
}

/** Where the NB keeps gateways: router ports list Gateway_Chassis rows, HA chassis groups HA_Chassis rows. */
const gatewaySources = [
  { kind: "router_port", owners: "Logical_Router_Port", table: "Gateway_Chassis", column: "gateway_chassis" },
  { kind: "ha_chassis_group", owners: "HA_Chassis_Group", table: "HA_Chassis", column: "ha_chassis" },
] as const;

/** Every gateway of the NB: router ports with gateway chassis, and HA chassis groups. */
export function gatewayGroups(nb: Lookup): GatewayGroup[] {
  const groups: GatewayGroup[] = [];
  for (const { kind, owners, table, column } of gatewaySources) {
    for (const owner of nb.rows(owners)) {
      const members = membersOf(nb, table, owner[column]);
      if (members.length > 0)
        groups.push({ kind, name: String(owner.name), uuid: owner._uuid, table, members });
    }
  }
  return groups;
}

/** The group a failover names: a router port (its gateway chassis or its HA group) or an HA group. */
export function findGroup(nb: Lookup, by: { router_port?: string; ha_chassis_group?: string }): GatewayGroup {
  const groups = gatewayGroups(nb);
  const match = (kind: GatewayGroup["kind"], key: string) =>
    groups.find((g) => g.kind === kind && (g.name === key || g.uuid === key));
  if (by.router_port !== undefined) {
    const lrp = nb
      .rows("Logical_Router_Port")
      .find((r) => r.name === by.router_port || r._uuid === by.router_port);
    if (lrp === undefined) throw new NotFoundError(`no logical router port ${by.router_port}`);
    const own = match("router_port", lrp._uuid);
    if (own !== undefined) return own;
    const ha =
      typeof lrp.ha_chassis_group === "string" ? match("ha_chassis_group", lrp.ha_chassis_group) : undefined;
    if (ha !== undefined) return ha;
    throw new ConflictError(`router port ${lrp.name} has no gateway chassis`);
  }
  if (by.ha_chassis_group !== undefined) {
    const group = match("ha_chassis_group", by.ha_chassis_group);
    if (group === undefined)
      throw new NotFoundError(`no HA chassis group ${by.ha_chassis_group} with members`);
    return group;
  }
  throw new ValidationError('invalid body: needs "router_port" or "ha_chassis_group"');
}

/** The two updates that make `target` active in place of the current first member. */
function swap(group: GatewayGroup, target: GatewayMember): PlannedChange[] {
  const active = group.members[0] as GatewayMember;
  let activeTo = target.priority;
  let targetTo = active.priority;
  if (activeTo === targetTo) {
    // Equal priorities: move the target just above, or the active just below at the top of the range.
    if (targetTo < maxPriority) targetTo += 1;
    else activeTo -= 1;
  }
  const update = (m: GatewayMember, to: number): PlannedChange => ({
    kind: "update",
    table: group.table,
    uuid: m.uuid,
    before: { priority: m.priority },
    after: { priority: to },
  });
  return [update(active, activeTo), update(target, targetTo)];
}

/**
 * Moves the group's gateway to `to` (a chassis name) or to the next member whose chassis is present
 * in the southbound (`present`).
 */
export function failoverChanges(
  group: GatewayGroup,
  to: string | undefined,
  present: ReadonlySet<string>,
): PlannedChange[] {
  const [active, ...rest] = group.members;
  if (active === undefined) throw new ConflictError(`${group.name} has no gateway chassis`);
  const target =
    to === undefined ? rest.find((m) => present.has(m.chassis)) : group.members.find((m) => m.chassis === to);
  if (target === undefined) {
    throw new ConflictError(
      to === undefined
        ? `${group.name}: no other gateway chassis is present in the southbound`
        : `${group.name}: chassis ${to} is not one of its gateway chassis`,
    );
  }
  if (target === active)
    throw new ConflictError(`${group.name}: chassis ${target.chassis} is already active`);
  if (!present.has(target.chassis))
    throw new ConflictError(`${group.name}: chassis ${target.chassis} is not present in the southbound`);
  return swap(group, target);
}

/** Moves every gateway active on `chassis` to its next present member. */
export function evacuateChanges(
  groups: readonly GatewayGroup[],
  chassis: string,
  present: ReadonlySet<string>,
) {
  const changes: PlannedChange[] = [];
  const moved: { gateway: string; to: string }[] = [];
  const stuck: string[] = [];
  for (const group of groups) {
    if (group.members[0]?.chassis !== chassis) continue;
    const target = group.members.slice(1).find((m) => present.has(m.chassis) && m.chassis !== chassis);
    if (target === undefined) {
      stuck.push(group.name);
      continue;
    }
    changes.push(...swap(group, target));
    moved.push({ gateway: group.name, to: target.chassis });
  }
  if (changes.length === 0) {
    throw new ConflictError(
      stuck.length > 0
        ? `chassis ${chassis}: no other present chassis can take ${stuck.join(", ")}`
        : `chassis ${chassis} is the active gateway of nothing`,
    );
  }
  return { changes, moved, stuck };
}
