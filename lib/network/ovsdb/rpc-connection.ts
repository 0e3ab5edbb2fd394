/**
 * One JSON-RPC 1.0 session with an ovsdb-server (RFC 7047 §4) over TCP, TLS or a unix socket.
 * It frames bytes, matches replies to requests, answers the server's `echo` probes and sends its own
 * when the line has been idle for `probeIntervalMs` (a dead peer is detected by the missing echo
 * reply, not by socket timeouts, which node:net under Bun gets wrong). It never reconnects: that is
 * OvsdbClient's job.
 */
import type { Socket } from "bun";
import { hostSocketBuffers, mayBeFullSocket, type SocketBuffers } from "./held-back.ts";
import { type FramerState, initialFramerState, parseFrame, pushChunk } from "./json-framer.ts";
import { ReadQueue } from "./read-queue.ts";
import type { Remote } from "./remote.ts";

/** TLS material for `ssl:` remotes, as file contents (PEM). */
export interface TlsMaterial {
  key: string;
  cert: string;
  ca: string;
}

interface RpcOptions {
  tls?: TlsMaterial;
  /** Idle time before an echo probe, and the time its reply may take before the session is closed. 0 disables. */
  probeIntervalMs?: number;
  connectTimeoutMs?: number;
  /**
   * `heldBack`: the server may have held notifications back from this session just before this one
   * (its socket was full) and merged what it held into it (see `heldBackBytes`).
   */
  onNotification?: (method: string, params: unknown[], heldBack: boolean) => void;
  /** The host's socket buffers, which say how large a read may follow a held-back stretch (held-back.ts). */
  socketBuffers?: SocketBuffers;
  /** Text read and not yet handled beyond which reading pauses (read-queue.ts). Default 16 MiB. */
  maxQueuedBytes?: number;
  /** Called exactly once when the session ends, with the reason if it was not `close()`. */
  onClose?: (reason: Error | undefined) => void;
}

export class RpcError extends Error {
  readonly error: unknown;
  constructor(method: string, error: unknown) {
    const text =
      typeof error === "string"
        ? error
        : typeof error === "object" && error !== null && "error" in error
          ? String((error as { error: unknown }).error)
          : JSON.stringify(error);
    super(`${method}: ${text}`);
    this.error = error;
  }
}

class ConnectionClosedError extends Error {}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onReply: (() => void) | undefined;
}

const encoder = new TextEncoder();

const hostBuffers = hostSocketBuffers();

export class RpcConnection {
  private socket: Socket<undefined> | undefined;
  private readonly framer: FramerState = initialFramerState();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private outbox: Uint8Array[] = [];
  private closed = false;
  private lastReceived = Date.now();
  private probeTimer: ReturnType<typeof setInterval> | undefined;
  private probeSentAt: number | undefined;
  /** Bytes and messages (or parts of one) read in the current turn of the event loop. */
  private turnBytes = 0;
  private turnPieces = 0;
  private turnReset = false;
  /**
   * The id of the last fence (an `echo`) sent after a read that may have followed a held-back
   * stretch; until its reply, notifications may be merged ones. ovsdb-server reads a session's next
   * request only once its output has gone out, and flushes its pending updates just before: so the
   * update it merged comes before the reply.
   */
  private fence: number | undefined;
  private readonly fences = new Set<number>();
  private readonly queue: ReadQueue<{ message: unknown; heldBack: boolean }>;

  private constructor(
    readonly remote: Remote,
    private readonly options: RpcOptions,
  ) {
    this.queue = new ReadQueue({
      handle: ({ message, heldBack }) => {
        try {
          this.dispatch(message, heldBack);
        } catch (error) {
          this.shutdown(asError(error));
        }
      },
      pauseReading: (paused) => (paused ? this.socket?.pause() : this.socket?.resume()),
      maxBytes: options.maxQueuedBytes ?? 16 * 1024 * 1024,
      sliceMs: 5,
    });
  }

  static async open(remote: Remote, options: RpcOptions = {}): Promise<RpcConnection> {
    const connection = new RpcConnection(remote, options);
    await connection.connect();
    return connection;
  }

  private async connect(): Promise<void> {
    const timeoutMs = this.options.connectTimeoutMs ?? 5000;
    const remote = this.remote;
    let settleHandshake: ((error: Error | undefined) => void) | undefined;
    const handshake = new Promise<void>((resolve, reject) => {
      settleHandshake = (error) => (error === undefined ? resolve() : reject(error));
    });
    const handlers = {
      data: (_socket: Socket<undefined>, data: Uint8Array) => this.receive(data),
      drain: () => this.flush(),
      close: () => this.shutdown(new ConnectionClosedError(`${remote.text}: connection closed`)),
      end: () => this.shutdown(new ConnectionClosedError(`${remote.text}: connection closed by peer`)),
      error: (_socket: Socket<undefined>, error: Error) => this.shutdown(error),
      // Like OVS's own stream-ssl, the peer's chain must lead to the CA, but its name is not checked:
      // OVS certificates (ovs-pki) name a role, not the address they are reached at.
      handshake: (_socket: Socket<undefined>, _ok: boolean, error: Error | null) => {
        const code = (error as { code?: unknown } | null)?.code;
        settleHandshake?.(
          error === null || code === "ERR_TLS_CERT_ALTNAME_INVALID"
            ? undefined
            : new Error(`${remote.text}: TLS peer refused: ${error.message}`),
        );
      },
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${remote.text}: connect timed out`)), timeoutMs);
    });
    const tls = this.options.tls;
    const connecting =
      remote.kind === "unix"
        ? Bun.connect({ unix: remote.path, socket: handlers })
        : Bun.connect({
            hostname: remote.host,
            port: remote.port,
            socket: handlers,
            ...(remote.kind === "ssl" ? { tls: { ...(tls ?? {}), rejectUnauthorized: false } } : {}),
          });
    try {
      this.socket = await Promise.race([connecting, timeout]);
      if (remote.kind === "ssl") await Promise.race([handshake, timeout]);
    } catch (error) {
      connecting.then((s) => s.end()).catch(() => undefined);
      this.closed = true;
      clearTimeout(timer);
      throw error;
    }
    clearTimeout(timer);
    const interval = this.options.probeIntervalMs ?? 5000;
    if (interval > 0) this.probeTimer = setInterval(() => this.probe(interval), Math.min(interval / 4, 1000));
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /**
   * Sends a request and resolves with its `result`, or rejects with RpcError on an `error` reply.
   * `onReply` runs when the reply is handled, before any message after it: the promise settles
   * later, after the rest of its slice, so only this places the reply among the notifications.
   */
  request(method: string, params: unknown[], onReply?: () => void): Promise<unknown> {
    if (this.closed) return Promise.reject(new ConnectionClosedError(`${this.remote.text}: not connected`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject, onReply });
      this.send({ method, params, id });
    });
  }

  /** Sends a fence; its reply ends the stretch it guards unless a later one was sent. */
  private sendFence(): void {
    const id = this.nextId++;
    this.fences.add(id);
    this.fence = id;
    this.send({ method: "echo", params: ["fence"], id });
  }

  close(): void {
    this.shutdown(undefined);
  }

  private send(message: unknown): void {
    this.outbox.push(encoder.encode(JSON.stringify(message)));
    this.flush();
  }

  private flush(): void {
    const socket = this.socket;
    if (socket === undefined || this.closed) return;
    while (this.outbox.length > 0) {
      const head = this.outbox[0] as Uint8Array;
      const written = socket.write(head);
      if (written < head.length) {
        // Partially written (or not at all): keep the rest for the next `drain`.
        this.outbox[0] = head.subarray(Math.max(written, 0));
        return;
      }
      this.outbox.shift();
    }
  }

  private receive(data: Uint8Array): void {
    this.lastReceived = Date.now();
    this.probeSentAt = undefined;
    let frames: string[];
    try {
      frames = pushChunk(this.framer, data);
    } catch (error) {
      this.shutdown(asError(error));
      return;
    }
    this.turnBytes += data.length;
    this.turnPieces += frames.length + 1;
    if (!this.turnReset) {
      this.turnReset = true;
      setImmediate(() => {
        this.turnBytes = 0;
        this.turnPieces = 0;
        this.turnReset = false;
      });
    }
    // A read this large may be the first after the server found the socket full. A merged update
    // may be in it (the server refills the socket while a read drains it) or follow it, up to the
    // reply to a fence sent now.
    const transport = this.remote.kind === "unix" ? "unix" : "tcp";
    const buffers = this.options.socketBuffers ?? hostBuffers;
    if (!this.closed && mayBeFullSocket(transport, this.turnBytes, this.turnPieces + 1, buffers))
      this.sendFence();
    try {
      for (const frame of frames) {
        const message = parseFrame(frame);
        if (!this.answeredOnRead(message))
          this.queue.push({ message, heldBack: this.fence !== undefined }, frame.length);
      }
    } catch (error) {
      this.shutdown(asError(error));
    }
  }

  /**
   * Messages that must not wait behind the queue: the server's `echo` probe (its answer keeps the
   * session alive however far behind handling is) and the replies to fences, which mark in read
   * order where a held-back stretch ends.
   */
  private answeredOnRead(message: unknown): boolean {
    if (typeof message !== "object" || message === null) return false;
    const m = message as { method?: unknown; params?: unknown; id?: unknown };
    if (m.method === "echo" && m.id !== undefined && m.id !== null) {
      this.send({ result: Array.isArray(m.params) ? m.params : [], error: null, id: m.id });
      return true;
    }
    if (m.method === undefined && typeof m.id === "number" && this.fences.delete(m.id)) {
      if (this.fence === m.id) this.fence = undefined;
      return true;
    }
    return false;
  }

  private dispatch(message: unknown, heldBack: boolean): void {
    if (typeof message !== "object" || message === null) return;
    const m = message as {
      method?: unknown;
      params?: unknown;
      id?: unknown;
      result?: unknown;
      error?: unknown;
    };
    if (typeof m.method === "string") {
      const params = Array.isArray(m.params) ? m.params : [];
      if (m.id === undefined || m.id === null) this.options.onNotification?.(m.method, params, heldBack);
      else this.send({ result: null, error: "unknown method", id: m.id });
      return;
    }
    if (typeof m.id !== "number") return;
    const pending = this.pending.get(m.id);
    if (pending === undefined) return;
    this.pending.delete(m.id);
    pending.onReply?.();
    if (m.error !== null && m.error !== undefined) pending.reject(new RpcError(pending.method, m.error));
    else pending.resolve(m.result);
  }

  private probe(interval: number): void {
    const now = Date.now();
    if (this.probeSentAt !== undefined) {
      if (now - this.probeSentAt >= interval) {
        this.shutdown(new Error(`${this.remote.text}: no reply to echo within ${interval} ms`));
      }
    } else if (now - this.lastReceived >= interval) {
      this.probeSentAt = now;
      this.request("echo", []).catch(() => undefined);
    }
  }

  /** Idempotent: Bun may report `end`, `error` and `close` for one loss. */
  private shutdown(reason: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.probeTimer);
    this.queue.stop();
    this.socket?.end();
    const error = reason ?? new ConnectionClosedError(`${this.remote.text}: closed`);
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    this.outbox = [];
    this.options.onClose?.(reason);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
