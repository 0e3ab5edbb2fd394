/**
 * Fleet health from the switch rows of each chassis. Pure: the counters of the previous read come in
 * and the counters of this read go out, because error and drop detection is "increased since the
 * previous read" (a counter that went down was reset by an ovs-vswitchd restart, not an increase).
 */
import type { Row } from "../ovsdb/datum.ts";

interface MemberInput {
  systemId: string;
  connected: boolean;
  bridges: number;
  ports: number;
  interfaces: readonly Row[];
}

/** What a chassis's switch holds, and the fleet's sum of it. */
interface SwitchCounts {
  bridges: number;
  ports: number;
  interfaces: number;
  down_interfaces: number;
  error_interfaces: number;
  drop_interfaces: number;
}

interface MemberHealth extends SwitchCounts {
  system_id: string;
  connected: boolean;
}

export interface FleetHealth extends SwitchCounts {
  chassis: number;
  connected: number;
  unreachable: number;
  members: MemberHealth[];
}

/** Per chassis, per interface uuid: the four counters as last read. */
type CounterMemory = ReadonlyMap<string, ReadonlyMap<string, Counters>>;

export interface Counters {
  rx_errors: number;
  tx_errors: number;
  rx_dropped: number;
  tx_dropped: number;
}

function counters(row: Row): Counters {
  const stats = row.statistics;
  const read = (key: string): number => {
    if (stats === null || typeof stats !== "object" || Array.isArray(stats)) return 0;
    const value = stats[key];
    return typeof value === "number" ? value : 0;
  };
  return {
    rx_errors: read("rx_errors"),
    tx_errors: read("tx_errors"),
    rx_dropped: read("rx_dropped"),
    tx_dropped: read("tx_dropped"),
  };
}

const increased = (before: number | undefined, now: number) => before !== undefined && now > before;

export function fleetHealth(
  members: readonly MemberInput[],
  previous: CounterMemory,
): { health: FleetHealth; memory: Map<string, Map<string, Counters>> } {
  const memory = new Map<string, Map<string, Counters>>();
  const out: MemberHealth[] = [];
  for (const member of members) {
    const entry: MemberHealth = {
      system_id: member.systemId,
      connected: member.connected,
      bridges: 0,
      ports: 0,
      interfaces: 0,
      down_interfaces: 0,
      error_interfaces: 0,
      drop_interfaces: 0,
    };
    out.push(entry);
    const before = previous.get(member.systemId);
    if (!member.connected) {
      // Keep the last counters of an unreachable chassis, so its first read back compares with them.
      if (before !== undefined) memory.set(member.systemId, new Map(before));
      continue;
    }
    const now = new Map<string, Counters>();
    memory.set(member.systemId, now);
    entry.bridges = member.bridges;
    entry.ports = member.ports;
    entry.interfaces = member.interfaces.length;
    for (const row of member.interfaces) {
      const c = counters(row);
      now.set(row._uuid, c);
      const b = before?.get(row._uuid);
      if (row.link_state === "down") entry.down_interfaces++;
      if (increased(b?.rx_errors, c.rx_errors) || increased(b?.tx_errors, c.tx_errors))
        entry.error_interfaces++;
      if (increased(b?.rx_dropped, c.rx_dropped) || increased(b?.tx_dropped, c.tx_dropped))
        entry.drop_interfaces++;
    }
  }
  const sum = (key: keyof MemberHealth) => out.reduce((n, m) => n + (m[key] as number), 0);
  const connected = out.filter((m) => m.connected).length;
  return {
    health: {
      chassis: out.length,
      connected,
      unreachable: out.length - connected,
      bridges: sum("bridges"),
      ports: sum("ports"),
      interfaces: sum("interfaces"),
      down_interfaces: sum("down_interfaces"),
      error_interfaces: sum("error_interfaces"),
      drop_interfaces: sum("drop_interfaces"),
      members: out,
    },
    memory,
  };
}
