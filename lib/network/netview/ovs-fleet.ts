/**
 * The chassis switches of a cluster: one OvsdbClient per system-id on its management address, each
 * with its own cache, so one dead chassis never affects the others. Health keeps the counters of the
 * previous read, as the spec's deltas need.
 */
import { type BackoffPolicy, defaultBackoff } from "../../foundation/async/backoff.ts";
import { OvsdbClient, type OvsdbLogger } from "../ovsdb/ovsdb-client.ts";
import type { Remote } from "../ovsdb/remote.ts";
import type { TlsMaterial } from "../ovsdb/rpc-connection.ts";
import { type Counters, type FleetHealth, fleetHealth } from "./fleet-health.ts";
import { ovsTableNames } from "./table-names.ts";

export interface FleetMember {
  systemId: string;
  remotes: Remote[];
  client: OvsdbClient;
}

interface FleetStatus {
  system_id: string;
  address: string;
  connected: boolean;
}

export class OvsFleet {
  readonly members: ReadonlyMap<string, FleetMember>;
  private memory = new Map<string, Map<string, Counters>>();

  constructor(
    mapping: ReadonlyMap<string, Remote[]>,
    options: { tls?: TlsMaterial; backoff?: BackoffPolicy; probeIntervalMs?: number; log?: OvsdbLogger } = {},
  ) {
    const members = new Map<string, FleetMember>();
    for (const [systemId, remotes] of mapping) {
      const client = new OvsdbClient({
        remotes,
        database: "Open_vSwitch",
        tables: [...ovsTableNames],
        backoff: options.backoff ?? defaultBackoff,
        probeIntervalMs: options.probeIntervalMs ?? 5000,
        ...(options.tls === undefined ? {} : { tls: options.tls }),
        ...(options.log === undefined ? {} : { log: options.log }),
      });
      members.set(systemId, { systemId, remotes, client });
    }
    this.members = members;
  }

  start(): void {
    for (const member of this.members.values()) member.client.start();
  }

  stop(): void {
    for (const member of this.members.values()) member.client.stop();
  }

  status(): FleetStatus[] {
    return [...this.members.values()].map((m) => ({
      system_id: m.systemId,
      address: m.remotes.map((r) => r.text).join(","),
      connected: m.client.cache.authoritative,
    }));
  }

  health(): FleetHealth {
    const inputs = [...this.members.values()].map((m) => {
      const cache = m.client.cache;
      return {
        systemId: m.systemId,
        connected: cache.authoritative,
        bridges: cache.count("Bridge"),
        ports: cache.count("Port"),
        interfaces: cache.rows("Interface"),
      };
    });
    const { health, memory } = fleetHealth(inputs, this.memory);
    this.memory = memory;
    return health;
  }

  /** Whether this interface's error counters grew between the last two health reads. */
  errorsIncreased(systemId: string, iface: { _uuid: string; statistics?: unknown }): boolean {
    const before = this.memory.get(systemId)?.get(iface._uuid);
    const stats = iface.statistics as Record<string, unknown> | null | undefined;
    if (before === undefined || stats === null || stats === undefined) return false;
    const now = (key: string) => (typeof stats[key] === "number" ? (stats[key] as number) : 0);
    return now("rx_errors") > before.rx_errors || now("tx_errors") > before.tx_errors;
  }
}
