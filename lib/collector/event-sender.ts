/**
 * The sender loop (spec 2, Collector modes and consumption, Errors): posts the oldest events of the
 * outbox to `POST /api/v1/events` and removes them once the API answered for them. Refused items are
 * logged one warning each and removed, never retried; transport failures and 5xx are retried with
 * capped backoff and nothing leaves the outbox; a 413 halves the batch until it fits and acceptance
 * grows it back (decision 264). A crash between the API's answer and the removal sends a batch twice:
 * ingest deduplicates it.
 */
import { type BackoffPolicy, backoffDelay } from "../async/backoff.ts";
import type { Secret } from "../config/secret.ts";
import { bytesBeyond } from "../oslo/envelope.ts";
import { maxEventBytes } from "../oslo/notification.ts";
import { growBatch, shrinkBatch } from "./batch-size.ts";
import type { CollectorCounts } from "./collector-counts.ts";
import { type Outbox, OutboxError, type OutboxRow } from "./outbox.ts";

export interface SenderLogger {
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
}

/** The `IngestResult` answer (spec 1). */
interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; event_id: string | null; reason: string }[];
}

type Attempt =
  | { kind: "answered"; answer: IngestAnswer }
  | { kind: "too-large" }
  | { kind: "unreadable"; detail: string }
  | { kind: "failed"; detail: string };

export const defaultRetry: BackoffPolicy = { initialMs: 500, maxMs: 15_000 };

/** `<base>/api/v1/events`, keeping a path prefix of the base (an API behind a proxy path). */
export function eventsUrl(base: URL): URL {
  const url = new URL(base.toString());
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/api/v1/events`;
  return url;
}

function isIngestAnswer(value: unknown): value is IngestAnswer {
  const v = value as IngestAnswer | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.accepted === "number" &&
    typeof v.duplicates === "number" &&
    Array.isArray(v.rejected)
  );
}

export class EventSender {
  readonly #options: EventSenderOptions;
  readonly #url: URL;
  #batch: number;
  #failures = 0;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #inFlight: AbortController | undefined;
  #attempts = 0;

  constructor(options: EventSenderOptions) {
    this.#options = options;
    this.#url = eventsUrl(options.reportingUrl);
    this.#batch = options.batchMax;
  }

  /** The batch size the next attempt uses. */
  get batchSize(): number {
    return this.#batch;
  }

  /** POSTs made so far (for the bench and tests). */
  get attempts(): number {
    return this.#attempts;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** New events are in the outbox: an idle sender goes at once. */
  wake(): void {
    this.#wake?.();
  }

  /**
   * Stops after the attempt in flight; one still running after `graceMs` is abandoned (its events
   * stay in the outbox and go again at the next start).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    this.wake();
    const timer = setTimeout(() => this.#inFlight?.abort(), graceMs);
    await this.#loop;
    clearTimeout(timer);
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let rows: OutboxRow[];
      try {
        rows = this.#options.outbox.take(this.#batch);
      } catch (error) {
        this.#options.log.error({ err: error }, "the sender cannot read the outbox");
        await this.#pause(backoffDelay(this.#retryPolicy, this.#failures++, Math.random()));
        continue;
      }
      if (rows.length === 0) {
        await this.#pause(this.#options.idleMs ?? 1000);
        continue;
      }
      const attempt = await this.#post(rows);
      if (this.#settle(rows, attempt)) this.#failures = 0;
      else if (!this.#stopping)
        await this.#pause(backoffDelay(this.#retryPolicy, this.#failures++, Math.random()));
    }
  }

  /** Acts on one attempt's outcome; false when it should be retried after a wait. */
  #settle(rows: OutboxRow[], attempt: Attempt): boolean {
    const { counts, log } = this.#options;
    const first = rows[0] as OutboxRow;
    const last = rows[rows.length - 1] as OutboxRow;
    switch (attempt.kind) {
      case "answered": {
        const { answer } = attempt;
        for (const item of answer.rejected) {
          log.warn(
            { index: item.index, event_id: item.event_id, reason: item.reason },
            "the Reporting API refused an event; it is dropped",
          );
        }
        if (!this.#remove(first.seq, last.seq)) return false;
        counts.delivered(answer.accepted + answer.duplicates);
        counts.deliveryErrors(answer.rejected.length);
        this.#batch = growBatch(this.#batch, this.#options.batchMax);
        return true;
      }
      case "too-large":
      case "unreadable": {
        if (rows.length > 1) {
          this.#batch = shrinkBatch(Math.min(this.#batch, rows.length));
          log.warn(
            { status: attempt.kind === "too-large" ? 413 : 400, events: rows.length, batch: this.#batch },
            "the Reporting API did not take the batch whole; halving it",
          );
          return true;
        }
        const bytes = bytesBeyond(first.json, maxEventBytes);
        if (attempt.kind === "too-large" && bytes === null) {
          counts.deliveryErrors(1);
          log.error(
            { events: 1 },
            "the Reporting API answered 413 to a single event under 64 KiB; a limit in the way, retrying",
          );
          return false;
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
        if (!this.#remove(first.seq, last.seq)) return false;
        counts.deliveryErrors(1);
        return true;
      }
      case "failed":
        counts.deliveryErrors(1);
        log.warn(
          { events: rows.length, detail: attempt.detail, buffered: this.#options.outbox.depth },
          "the Reporting API did not take the batch; retrying",
        );
        return false;
    }
  }

  #remove(first: number, last: number): boolean {
    try {
      this.#options.outbox.remove(first, last);
      return true;
    } catch (error) {
      if (!(error instanceof OutboxError)) throw error;
      this.#options.log.error({ err: error }, "the sender cannot remove a delivered batch; it will go again");
      return false;
    }
  }

  async #post(rows: readonly OutboxRow[]): Promise<Attempt> {
    const controller = new AbortController();
    this.#inFlight = controller;
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
        if (isIngestAnswer(answer)) return { kind: "answered", answer };
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
      this.#inFlight = undefined;
    }
  }

  #pause(ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }

  get #retryPolicy(): BackoffPolicy {
    return this.#options.retry ?? defaultRetry;
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
