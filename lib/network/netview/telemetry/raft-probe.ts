/**
 * Raft health from each member's own `_Server` database (decision 358): every configured remote of a
 * cluster's NB and SB is asked, on a short session of its own, for its `Database` row: the model,
 * whether it is connected to its cluster, whether it is the leader, its log index and server id.
 * Polled in the background, so reads and alerts never wait on a dead member.
 */
import type { OvsdbLogger } from "../../ovsdb/ovsdb-client.ts";
import type { Remote } from "../../ovsdb/remote.ts";
import { RpcConnection, type TlsMaterial } from "../../ovsdb/rpc-connection.ts";
import type { FeedDatabase } from "../history/change-event.ts";

export interface RaftMember {
  remote: string;
  reachable: boolean;
  error: string | null;
  model: "standalone" | "clustered" | "relay" | null;
  connected: boolean | null;
  leader: boolean | null;
  /** The member's raft log index (clustered only). */
  index: number | null;
  sid: string | null;
  cid: string | null;
}

export interface RaftStatus {
  cluster: string;
  database: FeedDatabase;
  name: string;
  checked_at: string | null;
  members: RaftMember[];
}

interface ProbeTarget {
  cluster: string;
  nb: Remote[];
  sb: Remote[];
}

const databaseNames: Record<FeedDatabase, string> = { nb: "OVN_Northbound", sb: "OVN_Southbound" };

/** An optional OVSDB column on the wire: the atom, or `["set", []]` for none. */
function optionalAtom(wire: unknown): unknown {
  if (Array.isArray(wire) && wire[0] === "set") return (wire[1] as unknown[])[0] ?? null;
  if (Array.isArray(wire) && wire[0] === "uuid") return wire[1];
  return wire ?? null;
}

/** Reads one remote's `_Server.Database` row for `database`; never throws. */
export async function probeMember(
  remote: Remote,
  database: string,
  options: { tls?: TlsMaterial; timeoutMs: number },
): Promise<RaftMember> {
  const member: RaftMember = {
    remote: remote.text,
    reachable: false,
    error: null,
    model: null,
    connected: null,
    leader: null,
    index: null,
    sid: null,
    cid: null,
  };
  let connection: RpcConnection | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    connection = await RpcConnection.open(remote, {
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      probeIntervalMs: 0,
      connectTimeoutMs: options.timeoutMs,
    });
    const open = connection;
    const reply = await Promise.race([
      open.request("transact", [
        "_Server",
        {
          op: "select",
          table: "Database",
          where: [["name", "==", database]],
          columns: ["model", "connected", "leader", "index", "sid", "cid"],
        },
      ]),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no answer in time")), options.timeoutMs);
      }),
    ]);
    const row = (reply as { rows?: Record<string, unknown>[] }[] | null)?.[0]?.rows?.[0];
    member.reachable = true;
    if (row === undefined) {
      member.error = `serves no ${database}`;
      return member;
    }
    const model = optionalAtom(row.model);
    member.model = model === "clustered" || model === "standalone" || model === "relay" ? model : null;
    member.connected = optionalAtom(row.connected) === true;
    member.leader = optionalAtom(row.leader) === true;
    const index = optionalAtom(row.index);
    member.index = typeof index === "number" ? index : null;
    const sid = optionalAtom(row.sid);
    const cid = optionalAtom(row.cid);
    member.sid = typeof sid === "string" ? sid : null;
    member.cid = typeof cid === "string" ? cid : null;
  } catch (error) {
    member.error = (error as Error).message;
  } finally {
    clearTimeout(timer);
    connection?.close();
  }
  return member;
}

export class RaftProbe {
  private readonly statuses = new Map<string, RaftStatus>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly targets: readonly ProbeTarget[],
    private readonly options: {
      intervalMs: number;
      timeoutMs: number;
      tls?: TlsMaterial;
      now?: () => number;
      log?: OvsdbLogger;
    },
  ) {
    for (const target of targets) {
      for (const db of ["nb", "sb"] as const) {
        this.statuses.set(`${target.cluster}/${db}`, {
          cluster: target.cluster,
          database: db,
          name: databaseNames[db],
          checked_at: null,
          members: [],
        });
      }
    }
  }

  /** The last answers of every member of the cluster's two databases. */
  status(cluster: string): RaftStatus[] {
    return (["nb", "sb"] as const).map((db) => this.statuses.get(`${cluster}/${db}`) as RaftStatus);
  }

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Asks every member now (one round at a time; a caller joins a round under way). */
  refresh(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const now = this.options.now ?? Date.now;
    const probe = {
      timeoutMs: this.options.timeoutMs,
      ...(this.options.tls === undefined ? {} : { tls: this.options.tls }),
    };
    await Promise.all(
      this.targets.flatMap((target) =>
        (["nb", "sb"] as const).map(async (db) => {
          const members = await Promise.all(
            target[db].map((remote) => probeMember(remote, databaseNames[db], probe)),
          );
          this.statuses.set(`${target.cluster}/${db}`, {
            cluster: target.cluster,
            database: db,
            name: databaseNames[db],
            checked_at: new Date(now()).toISOString(),
            members,
          });
        }),
      ),
    );
  }
}

type RaftHealthState = "healthy" | "degraded" | "no_leader" | "unreachable" | "standalone" | "unknown";

export interface RaftHealth {
  cluster: string;
  database: FeedDatabase;
  state: RaftHealthState;
  clustered: boolean;
  members: number;
  reachable: number;
  connected: number;
  leader: string | null;
  /** Highest minus lowest log index among connected members: how far the slowest is behind. */
  index_spread: number | null;
  checked_at: string | null;
}

/** One database's raft in a word, from its members' answers (pure). */
export function raftHealth(status: RaftStatus): RaftHealth {
  const reachable = status.members.filter((m) => m.reachable && m.error === null);
  const clustered = reachable.some((m) => m.model === "clustered");
  const connected = reachable.filter((m) => m.connected === true);
  const leader = connected.find((m) => m.leader === true);
  const indexes = connected.map((m) => m.index).filter((i): i is number => i !== null);
  const state: RaftHealthState =
    status.checked_at === null
      ? "unknown"
      : reachable.length === 0
        ? "unreachable"
        : !clustered
          ? "standalone"
          : leader === undefined
            ? "no_leader"
            : connected.length < status.members.length
              ? "degraded"
              : "healthy";
  return {
    cluster: status.cluster,
    database: status.database,
    state,
    clustered,
    members: status.members.length,
    reachable: reachable.length,
    connected: connected.length,
    leader: leader?.remote ?? null,
    index_spread: clustered && indexes.length > 0 ? Math.max(...indexes) - Math.min(...indexes) : null,
    checked_at: status.checked_at,
  };
}
