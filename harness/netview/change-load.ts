/**
 * What the change stream's load tests share: a burst of northbound row changes as fast as the
 * server takes them (one transaction each, pipelined on one session, so the order they commit in is
 * the order they are sent), the values each row went through, stream clients that read quickly or
 * slowly and resume after a cut or a restart, and the check that the stream and the store give each
 * row's committed values in order, with a marker wherever some were skipped (issue 31).
 */
import { parseRemote } from "../../lib/network/ovsdb/remote.ts";
import { RpcConnection } from "../../lib/network/ovsdb/rpc-connection.ts";

/** A row's state for the check: its `external_ids:v` ("" before the first update), null deleted. */
export type Value = string | null;

/** The fields of a change event the check reads. */
export interface SeenEvent {
  seq: number;
  uuid: string;
  op: "insert" | "update" | "delete";
  resync: boolean;
  coalesced: boolean;
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
}

const stateOf = (row: Record<string, unknown> | null | undefined): Value =>
  row === null || row === undefined
    ? null
    : ((row.external_ids as Record<string, string> | undefined)?.v ?? "");

/** The values each row was committed with, in commit order, by uuid. */
export class Committed {
  readonly values = new Map<string, Value[]>();

  add(uuid: string, value: Value): void {
    const list = this.values.get(uuid) ?? [];
    list.push(value);
    this.values.set(uuid, list);
  }
}

/**
 * A writer on the NB's session: `rows` Address_Sets named `<prefix><k>` inserted in one transaction,
 * then `updates` updates (row i % rows gets v = i), the first `deletes` rows deleted and `inserts`
 * rows added, all pipelined in two halves: `progress` is told how many replies of the first have
 * come back, and the second is sent once the first is done and `betweenHalves` has resolved.
 */
export async function nbBurst(options: {
  remote: string;
  prefix: string;
  rows: number;
  updates: number;
  deletes: number;
  inserts: number;
  committed: Committed;
  progress?: (done: number, total: number) => void;
  betweenHalves?: () => Promise<void>;
}): Promise<void> {
  const { prefix, committed } = options;
  const rpc = await RpcConnection.open(parseRemote(options.remote), { probeIntervalMs: 0 });
  try {
    const transact = async (...operations: unknown[]) => {
      const result = (await rpc.request("transact", ["OVN_Northbound", ...operations])) as {
        uuid?: [string, string];
        error?: string;
      }[];
      const failed = result.find((r) => r?.error !== undefined);
      if (failed !== undefined) throw new Error(`transaction failed: ${JSON.stringify(failed)}`);
      return result;
    };
    // Rows of about a kilobyte, so the events outrun the kernel's buffers for a slow reader.
    const addresses = ["set", Array.from({ length: 60 }, (_, i) => `10.79.${i >> 8}.${i & 255}`)];
    const insert = (name: string, v?: string) => ({
      op: "insert",
      table: "Address_Set",
      row: { name, addresses, external_ids: ["map", v === undefined ? [] : [["v", v]]] },
    });
    const created = await transact(
      ...Array.from({ length: options.rows }, (_, k) => insert(`${prefix}${k}`)),
    );
    const uuids = created.map((r) => (r.uuid as [string, string])[1]);
    for (const uuid of uuids) committed.add(uuid, "");
    const total = Math.floor(options.updates / 2);
    let done = 0;
    const replied = <T>(p: Promise<T>) =>
      p.then((value) => {
        options.progress?.(++done, total);
        return value;
      });
    let writes: Promise<unknown>[] = [];
    for (let i = 0; i < options.updates; i++) {
      if (i === total) {
        await Promise.all(writes);
        await options.betweenHalves?.();
        writes = [];
      }
      const k = i % options.rows;
      committed.add(uuids[k] as string, String(i));
      const write = transact({
        op: "update",
        table: "Address_Set",
        where: [["_uuid", "==", ["uuid", uuids[k]]]],
        row: { external_ids: ["map", [["v", String(i)]]] },
      });
      writes.push(i < total ? replied(write) : write);
    }
    for (let k = 0; k < options.deletes; k++) {
      committed.add(uuids[k] as string, null);
      writes.push(
        transact({ op: "delete", table: "Address_Set", where: [["_uuid", "==", ["uuid", uuids[k]]]] }),
      );
    }
    for (let j = 0; j < options.inserts; j++) {
      const v = `new-${j}`;
      writes.push(
        transact(insert(`${prefix}new_${j}`, v)).then((r) => committed.add(r[0]?.uuid?.[1] as string, v)),
      );
    }
    await Promise.all(writes);
  } finally {
    rpc.close();
  }
}

/**
 * Checks one row's events against what was committed: each event's value is a later committed value
 * than the one before; where values were skipped the event says so (`coalesced` or `resync`); an
 * update's `old` is the previous event's value (the values chain); the last is the final value.
 * Returns the problems found, and how many events skipped values and how many were marked.
 */
export function checkRow(
  uuid: string,
  committed: readonly Value[],
  events: readonly SeenEvent[],
): { problems: string[]; skipped: number; marked: number } {
  const problems: string[] = [];
  let at = -1;
  let skipped = 0;
  let marked = 0;
  let previous: SeenEvent | undefined;
  for (const e of events) {
    const value = e.op === "delete" ? null : stateOf(e.new);
    const next = committed.indexOf(value, at + 1);
    if (e.coalesced || e.resync) marked++;
    if (next < 0) {
      problems.push(`${uuid} seq ${e.seq}: ${JSON.stringify(value)} is not a later committed value`);
      continue;
    }
    if (next > at + 1) {
      skipped++;
      if (!e.coalesced && !e.resync)
        problems.push(`${uuid} seq ${e.seq}: skipped ${next - at - 1} values with no marker`);
    }
    if (e.op === "update" && previous !== undefined && e.old !== null && "external_ids" in e.old) {
      const before = stateOf({ external_ids: e.old.external_ids });
      if (before !== stateOf(previous.new))
        problems.push(
          `${uuid} seq ${e.seq}: old ${JSON.stringify(before)} does not follow the previous event`,
        );
    }
    at = next;
    previous = e;
  }
  if (at !== committed.length - 1)
    problems.push(
      `${uuid}: ends at ${JSON.stringify(committed[at])}, not ${JSON.stringify(committed.at(-1))}`,
    );
  return { problems, skipped, marked };
}

/** A stream client that keeps every change of the rows named `<prefix>...`, and resumes after a close. */
export class StreamReader {
  readonly changes: SeenEvent[] = [];
  readonly closeCodes: number[] = [];
  private lastSeq: number | undefined;
  private ws: WebSocket | undefined;
  private stopped = false;
  private pacer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly base: string,
    private readonly prefix: string,
    /** Reads in short spells with long pauses (a slow consumer), or all the time. */
    slow: boolean,
  ) {
    this.connect();
    if (slow) {
      // Reads for 30 ms of every 330.
      let tick = 0;
      this.pacer = setInterval(() => {
        tick = (tick + 1) % 11;
        if (tick === 0) this.ws?.resume();
        else if (tick === 1) this.ws?.pause();
      }, 30);
    }
  }

  get last(): number | undefined {
    return this.lastSeq;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.pacer);
    this.ws?.close();
  }

  private connect(): void {
    if (this.stopped) return;
    const since = this.lastSeq === undefined ? "" : `&since=${this.lastSeq}`;
    const ws = new WebSocket(
      `${this.base.replace("http", "ws")}/api/v1/ws?database=nb&table=Address_Set${since}`,
    );
    this.ws = ws;
    ws.onmessage = (e) => {
      const { type, latest_seq, ...event } = JSON.parse(String(e.data)) as {
        type: string;
        latest_seq?: number;
      } & SeenEvent;
      if (type === "hello") this.lastSeq ??= latest_seq ?? 0;
      if (type !== "change") return;
      this.lastSeq = event.seq;
      const name = String((event.new ?? event.old)?.name ?? "");
      if (name.startsWith(this.prefix)) this.changes.push(event);
    };
    ws.onclose = (e) => {
      if (this.stopped) return;
      this.closeCodes.push(e.code);
      setTimeout(() => this.connect(), 100);
    };
  }
}

/** Every event of the rows named `<prefix>...` in the store, after `since`, oldest first. */
export async function storedChanges(base: string, prefix: string, since: number): Promise<SeenEvent[]> {
  const found: SeenEvent[] = [];
  let after = since;
  for (;;) {
    const res = await fetch(`${base}/api/v1/events?database=nb&table=Address_Set&since=${after}&limit=1000`);
    const { events } = (await res.json()) as { events: SeenEvent[] };
    if (events.length === 0) return found;
    for (const e of events) if (String((e.new ?? e.old)?.name ?? "").startsWith(prefix)) found.push(e);
    after = events[events.length - 1]?.seq as number;
  }
}

/** The events of each row, by uuid, in seq order. */
export function byRow(events: readonly SeenEvent[]): Map<string, SeenEvent[]> {
  const rows = new Map<string, SeenEvent[]>();
  for (const e of events) {
    const list = rows.get(e.uuid) ?? [];
    list.push(e);
    rows.set(e.uuid, list);
  }
  return rows;
}
