/**
 * The sender loop (docs/collector.md#delivery-to-the-reporting-api): posts the oldest events of the
 * outbox to `POST /api/v1/events` and removes them once the API answered for them. Refused items are
 * logged one warning each and removed, never retried; transport failures and 5xx are retried with
 * capped backoff and nothing leaves the outbox; a 413 halves the batch until it fits and acceptance
 * grows it back (decision 264). Up to `inFlight` batches are posted at once, each owning its own run
 * of rows, removed only after its own 200 (decision 275). A crash between the API's answer and the
 * removal sends a batch twice: ingest deduplicates it.
 */
import { type BackoffPolicy, backoffDelay } from "../../foundation/async/backoff.ts";
import type { Secret } from "../../foundation/config/secret.ts";
import { bytesBeyond } from "../oslo/envelope.ts";
import { maxEventBytes } from "../oslo/notification.ts";
import type { IngestResult } from "../reporting/contract/event-schemas.ts";
import { growBatch, shrinkBatch } from "./batch-size.ts";
import type { CollectorCounts } from "./collector-counts.ts";
import { type Outbox, OutboxError, type OutboxRow } from "./outbox.ts";

interface SenderLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface EventSenderOptions {
  outbox: Outbox;
  /** The Reporting API's base URL; events go to `<base>/api/v1/events`. */
  reportingUrl: URL;
  token: Secret;
  batchMax: number;
  counts: CollectorCounts;
  log: SenderLogger;
  retry?: BackoffPolicy;
  /** An attempt that takes longer is abandoned and retried (the events stay in the outbox). */
  requestTimeoutMs?: number;
  /** How long an idle sender sleeps when nothing wakes it. */
  idleMs?: number;
  /** `SVC_OSC_BATCHES_IN_FLIGHT`: batches posted at once, each its own rows (decision 275); default 1. */
  inFlight?: number;
}

type Attempt =
  | { kind: "answered"; answer: IngestResult }
  | { kind: "too-large" }
  | { kind: "unreadable"; detail: string }
  | { kind: "failed"; detail: string };

const defaultRetry: BackoffPolicy = { initialMs: 500, maxMs: 15_000 };

/** `<base>/api/v1/events`, keeping a path prefix of the base (an API behind a proxy path). */
export function eventsUrl(base: URL): URL {
  const url = new URL(base.toString());
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/api/v1/events`;
  return url;
}

function isIngestResult(value: unknown): value is IngestResult {
  const v = value as IngestResult | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.accepted === "number" &&
    typeof v.duplicates === "number" &&
    Array.isArray(v.rejected)
  );
}

/** What became of one batch: removed from the outbox, split to go again at once, or to be retried later. */
type Settled = "done" | "split" | "retry";

export class EventSender {
  readonly #options: EventSenderOptions;
  readonly #url: URL;
  #batch: number;
  #failures = 0;
  #stopping = false;
  #workers: Promise<void>[] | undefined;
  /** Rows taken from the outbox and not removed yet: in flight, backing off, or split and waiting. */
  #owned = 0;
  /** The highest sequence number taken: new batches start after it, so no two batches share a row. */
  #cursor = 0;
  /** Batches the workers hold now. */
  #held = 0;
  /** Parts of batches the API did not take whole, to go before anything new. */
  readonly #parts: OutboxRow[][] = [];
  readonly #idle = new Set<() => void>();
  readonly #backingOff = new Set<() => void>();
  readonly #inFlight = new Set<AbortController>();
  #attempts = 0;

  constructor(options: EventSenderOptions) {
    this.#options = options;
    this.#url = eventsUrl(options.reportingUrl);
    this.#batch = options.batchMax;
  }

  /** The batch size the next batch taken uses. */
  get batchSize(): number {
    return this.#batch;
  }

  /** POSTs made so far (for the bench and tests). */
  get attempts(): number {
    return this.#attempts;
  }

  start(): void {
    this.#workers ??= Array.from({ length: Math.max(1, this.#options.inFlight ?? 1) }, () => this.#work());
  }

  /** New events are in the outbox: idle workers look at once (one backing off keeps its pace). */
  wake(): void {
    for (const resume of [...this.#idle]) resume();
  }

  /**
   * Stops after the attempts in flight; those still running after `graceMs` are abandoned (their
   * events stay in the outbox and go again at the next start).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    for (const resume of [...this.#idle, ...this.#backingOff]) resume();
    const timer = setTimeout(() => {
      for (const controller of this.#inFlight) controller.abort();
    }, graceMs);
    await Promise.all(this.#workers ?? []);
    clearTimeout(timer);
  }

  /** One of `inFlight` loops, each holding at most one batch. */
  async #work(): Promise<void> {
    while (!this.#stopping) {
      let rows: OutboxRow[] | null;
      try {
        rows = this.#next();
      } catch (error) {
        this.#options.log.error({ err: error }, "the sender cannot read the outbox");
        await this.#sleep(this.#backingOff, this.#backoff());
        continue;
      }
      if (rows === null) {
        await this.#sleep(this.#idle, this.#options.idleMs ?? 1000);
        continue;
      }
      this.#held++;
      try {
        await this.#deliver(rows);
      } finally {
        this.#held--;
      }
      // A slot is free: a worker waiting to send a partial batch may go now.
      this.wake();
    }
  }

  /**
   * The batch to post next, or null to wait: a part of a split batch first, else the oldest rows no
   * batch owns yet. While the API fails, only the batch backing off probes it; and a batch short of
   * the batch size goes only when no other is in flight, so under load the batches fill meanwhile.
   */
  #next(): OutboxRow[] | null {
    if (this.#failures > 0 && this.#held > 0) return null;
    const part = this.#parts.shift();
    if (part !== undefined) return part;
    const free = this.#options.outbox.depth - this.#owned;
    if (free <= 0 || (free < this.#batch && this.#held > 0)) return null;
    const rows = this.#options.outbox.take(this.#batch, this.#cursor);
    const last = rows[rows.length - 1];
    if (last === undefined) return null;
    this.#cursor = last.seq;
    this.#owned += rows.length;
    return rows;
  }

  /** Posts one batch until it is removed or split, or the sender stops (then it stays in the outbox). */
  async #deliver(rows: OutboxRow[]): Promise<void> {
    for (;;) {
      const settled = this.#settle(rows, await this.#post(rows));
      if (settled !== "retry") {
        this.#failures = 0;
        return;
      }
      if (this.#stopping) return;
      await this.#sleep(this.#backingOff, this.#backoff());
      if (this.#stopping) return;
    }
  }

  /** Acts on one attempt's outcome. */
  #settle(rows: OutboxRow[], attempt: Attempt): Settled {
    const { counts, log } = this.#options;
    const first = rows[0] as OutboxRow;
    switch (attempt.kind) {
      case "answered": {
        const { answer } = attempt;
        for (const item of answer.rejected) {
          log.warn(
            { index: item.index, event_id: item.event_id, reason: item.reason },
            "the Reporting API refused an event; it is dropped",
          );
        }
        if (!this.#remove(rows)) return "retry";
        counts.delivered(answer.accepted + answer.duplicates);
        counts.deliveryErrors(answer.rejected.length);
        this.#batch = growBatch(this.#batch, this.#options.batchMax);
        return "done";
      }
      case "too-large":
      case "unreadable": {
        if (rows.length > 1) {
          // Batches in flight together may all be refused: the size halves once per size refused.
          const size = Math.min(this.#batch, shrinkBatch(rows.length));
          if (size < this.#batch) {
            this.#batch = size;
            log.warn(
              { status: attempt.kind === "too-large" ? 413 : 400, events: rows.length, batch: size },
              "the Reporting API did not take the batch whole; halving it",
            );
          }
          const parts: OutboxRow[][] = [];
          for (let i = 0; i < rows.length; i += this.#batch) parts.push(rows.slice(i, i + this.#batch));
          this.#parts.unshift(...parts);
          return "split";
        }
        const bytes = bytesBeyond(first.json, maxEventBytes);
        if (attempt.kind === "too-large" && bytes === null) {
          counts.deliveryErrors(1);
          log.error(
            { events: 1 },
            "the Reporting API answered 413 to a single event under 64 KiB; a limit in the way, retrying",
          );
          return "retry";
        }
        // Retrying cannot help an event the API cannot take on its own (decision 270).
        log.error(
          {
            event_id: eventId(first.json),
            bytes: bytes ?? Buffer.byteLength(first.json),
            detail: attemptDetail(attempt),
          },
          attempt.kind === "too-large"
            ? "the Reporting API refused an event above 64 KiB (413); it is dropped"
            : "the Reporting API cannot read an event (400); it is dropped",
        );
        if (!this.#remove(rows)) return "retry";
        counts.deliveryErrors(1);
        return "done";
      }
      case "failed":
        counts.deliveryErrors(1);
        log.warn(
          { events: rows.length, detail: attempt.detail, buffered: this.#options.outbox.depth },
          "the Reporting API did not take the batch; retrying",
        );
        return "retry";
    }
  }

  /**
   * Removes one batch's rows: the range from its first to its last row, which no other batch shares
   * (batches are taken after the highest row taken, parts are cut from one batch).
   */
  #remove(rows: readonly OutboxRow[]): boolean {
    const first = rows[0] as OutboxRow;
    const last = rows[rows.length - 1] as OutboxRow;
    try {
      this.#options.outbox.remove(first.seq, last.seq);
      this.#owned -= rows.length;
      return true;
    } catch (error) {
      if (!(error instanceof OutboxError)) throw error;
      this.#options.log.error({ err: error }, "the sender cannot remove a delivered batch; it will go again");
      return false;
    }
  }

  async #post(rows: readonly OutboxRow[]): Promise<Attempt> {
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), this.#options.requestTimeoutMs ?? 60_000);
    this.#attempts++;
    try {
      const response = await fetch(this.#url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.#options.token.reveal()}`,
          "content-type": "application/json",
        },
        body: `[${rows.map((r) => r.json).join(",")}]`,
        signal: controller.signal,
      });
      const text = await response.text();
      if (response.status === 200) {
        const answer = parseJson(text);
        if (isIngestResult(answer)) return { kind: "answered", answer };
        return { kind: "failed", detail: "200 without an IngestResult" };
      }
      if (response.status === 413) return { kind: "too-large" };
      if (response.status === 400) return { kind: "unreadable", detail: problemDetail(text) };
      return { kind: "failed", detail: `${response.status} ${problemDetail(text)}`.trim() };
    } catch (error) {
      return {
        kind: "failed",
        detail: controller.signal.aborted
          ? "no answer in time"
          : error instanceof Error
            ? error.message
            : String(error),
      };
    } finally {
      clearTimeout(timeout);
      this.#inFlight.delete(controller);
    }
  }

  /** Waits `ms`, or less when `sleepers` are resumed (`wake` resumes the idle, `stop` every one). */
  #sleep(sleepers: Set<() => void>, ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      }
      sleepers.add(done);
    });
  }

  #backoff(): number {
    return backoffDelay(this.#options.retry ?? defaultRetry, this.#failures++, Math.random());
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `detail` of a problem document, cut short; never the request, which carries the credential. */
function problemDetail(text: string): string {
  const body = parseJson(text) as { detail?: unknown } | undefined;
  return typeof body?.detail === "string" ? body.detail.slice(0, 200) : "";
}

function attemptDetail(attempt: Attempt): string | undefined {
  return attempt.kind === "unreadable" || attempt.kind === "failed" ? attempt.detail : undefined;
}

function eventId(json: string): string | null {
  const event = parseJson(json) as { event_id?: unknown } | undefined;
  return typeof event?.event_id === "string" ? event.event_id : null;
}
