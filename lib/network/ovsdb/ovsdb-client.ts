/**
 * A long-lived client of one database on an ovsdb-server (or a cluster of them): connects, reads the
 * schema, monitors every table into a DatabaseCache, and reconnects with backoff when the session is
 * lost. It resumes with `monitor_cond_since` where the server supports it (clustered databases; a
 * standalone one answers found=false and sends everything) and falls back to `monitor_cond` on a
 * server that does not know the method.
 */
import { type BackoffPolicy, backoffDelay, defaultBackoff } from "../../foundation/async/backoff.ts";
import { DatabaseCache } from "./database-cache.ts";
import type { Remote } from "./remote.ts";
import { RpcConnection, RpcError, type TlsMaterial } from "./rpc-connection.ts";
import { type DatabaseSchema, parseSchema } from "./schema.ts";
import { decodeSelectedRows, selectOperations } from "./selected-rows.ts";

/** The structural subset of a pino logger the client uses, so it does not depend on a log setup. */
export interface OvsdbLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

interface OvsdbClientOptions {
  remotes: Remote[];
  database: string;
  tls?: TlsMaterial;
  backoff?: BackoffPolicy;
  probeIntervalMs?: number;
  connectTimeoutMs?: number;
  /** Monitor only these tables (default: every table of the schema). */
  tables?: string[];
  log?: OvsdbLogger;
}

type ClientState = "idle" | "connecting" | "syncing" | "synced" | "waiting" | "suspended" | "stopped";

const zeroTxnId = "00000000-0000-0000-0000-000000000000";

export class OvsdbClient {
  readonly cache: DatabaseCache;
  private stateValue: ClientState = "idle";
  private connection: RpcConnection | undefined;
  private attempt = 0;
  private remoteIndex = 0;
  private lastTxnId = zeroTxnId;
  private sinceSupported = true;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readyWaiters: (() => void)[] = [];
  private dialledWaiters: (() => void)[] | undefined = [];
  private lastErrorValue: string | undefined;
  private syncsValue = 0;
  private resumesValue = 0;
  /** Bumped by suspend and resume, so a connect begun before either gives up its session. */
  private epoch = 0;

  constructor(private readonly options: OvsdbClientOptions) {
    if (options.remotes.length === 0) throw new Error("OvsdbClient needs at least one remote");
    this.cache = new DatabaseCache(options.database);
  }

  get state(): ClientState {
    return this.stateValue;
  }

  /** The reason the last session ended or failed, without secrets (remote text and server message). */
  get lastError(): string | undefined {
    return this.lastErrorValue;
  }

  /** Completed (re)syncs, for metrics and tests. */
  get syncs(): number {
    return this.syncsValue;
  }

  private stopped(): boolean {
    return this.stateValue === "stopped" || this.stateValue === "suspended";
  }

  /** Syncs that resumed from the last transaction id instead of reloading every row. */
  get resumes(): number {
    return this.resumesValue;
  }

  start(): void {
    if (this.stateValue !== "idle") return;
    void this.connect();
  }

  /**
   * Resolves once the first session has asked for its rows (or its attempt has failed, or the client
   * stopped): from then on the server is preparing its reply, and a program can spend the wait on
   * loading the rest of itself (decision 334).
   */
  dialled(): Promise<void> {
    const waiters = this.dialledWaiters;
    if (waiters === undefined) return Promise.resolve();
    return new Promise((resolve) => waiters.push(resolve));
  }

  private settleDialled(): void {
    for (const resolve of this.dialledWaiters?.splice(0) ?? []) resolve();
    this.dialledWaiters = undefined;
  }

  /** Resolves once the cache is authoritative (now, or after the next sync). */
  ready(): Promise<void> {
    if (this.cache.authoritative) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  stop(): void {
    this.settleDialled();
    this.stateValue = "stopped";
    clearTimeout(this.retryTimer);
    this.connection?.close();
    this.connection = undefined;
    this.cache.setAuthoritative(false);
  }

  /**
   * Ends the session and stays disconnected, keeping the cache for whoever fills it meanwhile (a
   * loaded snapshot, decision 352), until `resume`.
   */
  suspend(): void {
    if (this.stateValue === "stopped" || this.stateValue === "suspended") return;
    this.stateValue = "suspended";
    this.epoch++;
    clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    connection?.close();
    this.cache.setAuthoritative(false);
  }

  /** Connects again after `suspend`, with a full resync: the cache no longer holds the server's rows. */
  resume(): void {
    if (this.stateValue !== "suspended") return;
    this.epoch++;
    this.lastTxnId = zeroTxnId;
    this.attempt = 0;
    void this.connect();
  }

  /** RFC 7047 §4.1.3 `transact` on this database; rejects when not connected. */
  async transact(operations: unknown[]): Promise<unknown[]> {
    const result = await this.session().request("transact", [this.options.database, ...operations]);
    if (!Array.isArray(result)) throw new Error("transact: result is not an array");
    return result;
  }

  async listDbs(): Promise<string[]> {
    const result = await this.session().request("list_dbs", []);
    return Array.isArray(result) ? result.filter((x): x is string => typeof x === "string") : [];
  }

  private session(): RpcConnection {
    const connection = this.connection;
    if (connection === undefined || !connection.isOpen) {
      throw new RpcError("request", `${this.options.database}: not connected`);
    }
    return connection;
  }

  private async connect(): Promise<void> {
    if (this.stateValue === "stopped") return;
    this.stateValue = "connecting";
    const epoch = this.epoch;
    const remote = this.options.remotes[this.remoteIndex % this.options.remotes.length] as Remote;
    // Notifications that arrive before the monitor reply has been applied wait here: the reply's
    // continuation runs as a microtask after the rest of its chunk has been dispatched.
    let queued: [string, unknown[], boolean][] | undefined = [];
    let connection: RpcConnection | undefined;
    const onNotification = (method: string, params: unknown[], heldBack: boolean) => {
      if (connection !== this.connection) return;
      if (queued !== undefined) queued.push([method, params, heldBack]);
      else this.notification(method, params, heldBack);
    };
    try {
      connection = await RpcConnection.open(remote, {
        ...(this.options.tls === undefined ? {} : { tls: this.options.tls }),
        probeIntervalMs: this.options.probeIntervalMs ?? 5000,
        connectTimeoutMs: this.options.connectTimeoutMs ?? 5000,
        onNotification,
        onClose: (reason) => {
          if (connection === this.connection) this.lost(reason);
        },
      });
      if (this.stopped() || epoch !== this.epoch) {
        connection.close();
        return;
      }
      this.connection = connection;
      this.stateValue = "syncing";
      const [, rawSchema] = await Promise.all([
        this.checkClusterMember(connection, remote),
        connection.request("get_schema", [this.options.database]),
      ]);
      const schema = parseSchema(rawSchema);
      const seen = await this.monitor(connection, schema, () => queued?.length ?? 0);
      for (const [i, [method, params, heldBack]] of queued.entries()) {
        if (i < seen) this.alreadySeen(method, params);
        else this.notification(method, params, heldBack);
      }
      queued = undefined;
      // A queued notification that did not apply has already dropped this session.
      if (connection !== this.connection) return;
      this.attempt = 0;
      this.syncsValue++;
      this.stateValue = "synced";
      this.cache.setAuthoritative(true);
      this.options.log?.info({ database: this.options.database, remote: remote.text }, "ovsdb synced");
      for (const resolve of this.readyWaiters.splice(0)) resolve();
    } catch (error) {
      this.settleDialled();
      // A session that a suspend ended has nothing left to report.
      if (epoch !== this.epoch) return;
      if (connection === this.connection) this.drop(error);
      else this.lost(asError(error));
    }
  }

  /**
   * A member of a clustered database that has lost its cluster still answers, with rows that may be
   * old: like the OVS IDL, read `_Server` first and move on to the next remote if it is cut off. A
   * server without `_Server` (before clustering existed) is taken as it is.
   */
  private async checkClusterMember(connection: RpcConnection, remote: Remote): Promise<void> {
    let result: unknown;
    try {
      result = await connection.request("transact", [
        "_Server",
        {
          op: "select",
          table: "Database",
          where: [["name", "==", this.options.database]],
          columns: ["model", "connected"],
        },
      ]);
    } catch (error) {
      if (error instanceof RpcError) return;
      throw error;
    }
    const row = (result as { rows?: { model?: unknown; connected?: unknown }[] }[] | null)?.[0]?.rows?.[0];
    if (row?.model === "clustered" && row.connected === false) {
      throw new Error(`${remote.text}: this member is not connected to its cluster`);
    }
  }

  /**
   * Starts the session's monitor and fills the cache. A resumed monitor (found) brings the changes
   * since; otherwise the monitor sends no initial rows and they are read with one `select` after its
   * reply (selected-rows.ts, decision 342). ovsdb-server sends a session's pending updates before it
   * reads its next request, so the updates that come before the select's reply are of transactions
   * the select has seen: returns how many of the notifications queued meanwhile (`queued()` counts
   * them) are already in the rows.
   */
  private async monitor(
    connection: RpcConnection,
    schema: DatabaseSchema,
    queued: () => number,
  ): Promise<number> {
    const database = this.options.database;
    const tables = monitoredTables(schema, this.options.tables);
    // Resuming is only sound against rows decoded with the same schema.
    const sameSchema =
      this.cache.schema !== undefined && JSON.stringify(this.cache.schema) === JSON.stringify(schema);
    if (this.sinceSupported) {
      try {
        const since = sameSchema ? this.lastTxnId : zeroTxnId;
        const requests = monitorRequests(schema, tables, false);
        const monitor = connection.request("monitor_cond_since", [database, database, requests, since]);
        let seen = 0;
        const readRows = () =>
          connection.request("transact", [database, ...selectOperations(schema, tables)], () => {
            seen = queued();
          });
        // With nothing to resume from, the rows are asked for at once, not after the monitor's reply.
        let select = since === zeroTxnId ? readRows() : undefined;
        if (select !== undefined) {
          this.settleDialled();
          // Awaited below; of no use if the monitor fails.
          select.catch(() => undefined);
        }
        const reply = await monitor;
        if (!Array.isArray(reply) || reply.length !== 3 || typeof reply[1] !== "string") {
          throw new Error("monitor_cond_since: malformed reply");
        }
        const [found, txnId, updates] = reply as [unknown, string, unknown];
        this.lastTxnId = txnId;
        // A select asked for at once means nothing to resume (no id, or another schema).
        if (found === true && select === undefined) {
          this.settleDialled();
          this.cache.apply(updates);
          this.resumesValue++;
          return 0;
        }
        select ??= readRows();
        this.settleDialled();
        this.cache.replaceTables(schema, decodeSelectedRows(schema, tables, await select));
        return seen;
      } catch (error) {
        if (!(error instanceof RpcError && /unknown method/i.test(error.message))) throw error;
        this.sinceSupported = false;
      }
    }
    const request = connection.request("monitor_cond", [
      database,
      database,
      monitorRequests(schema, tables, true),
    ]);
    this.settleDialled();
    const updates = await request;
    this.cache.replaceAll(schema, updates);
    return 0;
  }

  /** A notification of changes the rows already hold: only its transaction id counts. */
  private alreadySeen(method: string, params: unknown[]): void {
    if (method === "update3" && typeof params[1] === "string") this.lastTxnId = params[1];
  }

  private notification(method: string, params: unknown[], heldBack: boolean): void {
    const commit = { coalesced: heldBack };
    try {
      if (method === "update3" && params.length === 3 && typeof params[1] === "string") {
        this.cache.apply(params[2], commit);
        this.lastTxnId = params[1];
      } else if (method === "update2" && params.length === 2) {
        this.cache.apply(params[1], commit);
      }
    } catch (error) {
      // The rows no longer match the server's: drop the session and resync from scratch.
      this.options.log?.warn({ database: this.options.database, err: error }, "ovsdb update did not apply");
      this.lastTxnId = zeroTxnId;
      this.drop(error);
    }
  }

  /** Ends the current session on our side; `lost` runs once, with our reason rather than none. */
  private drop(error: unknown): void {
    const connection = this.connection;
    this.connection = undefined;
    connection?.close();
    this.lost(asError(error));
  }

  private lost(reason: Error | undefined): void {
    this.connection = undefined;
    this.cache.setAuthoritative(false);
    if (this.stopped() || this.stateValue === "waiting") return;
    this.lastErrorValue = reason?.message;
    this.stateValue = "waiting";
    const delay = backoffDelay(this.options.backoff ?? defaultBackoff, this.attempt, Math.random());
    this.attempt++;
    this.remoteIndex++;
    this.options.log?.warn(
      { database: this.options.database, reason: reason?.message, retry_in_ms: delay },
      "ovsdb session lost",
    );
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}

/** The tables of `schema` a client monitors: `tables` (those the schema has), or every table. */
export function monitoredTables(schema: DatabaseSchema, tables?: string[]): string[] {
  return (tables ?? Object.keys(schema.tables)).filter((name) => schema.tables[name] !== undefined);
}

/**
 * The `<monitor-cond-requests>` for every column of `tables`, with their initial rows or without
 * (every change after the reply either way).
 */
function monitorRequests(
  schema: DatabaseSchema,
  tables: string[],
  initial: boolean,
): Record<string, unknown> {
  const select = { initial, insert: true, delete: true, modify: true };
  const requests: Record<string, unknown> = {};
  for (const name of tables) {
    const table = schema.tables[name];
    if (table !== undefined) requests[name] = [{ columns: table.columnNames, select }];
  }
  return requests;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
