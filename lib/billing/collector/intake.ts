/**
 * What happens to a group of deliveries (docs/collector.md#what-happens-to-a-delivery): each is read with
 * `lib/billing/oslo`; the mapped events of the whole group are committed to the outbox in one transaction;
 * only then is a delivery acknowledged. A delivery whose event the outbox did not take (a refused
 * write, or no room under the bound) is requeued on the broker, never acknowledged.
 */
import { type BackoffPolicy, backoffDelay } from "../../foundation/async/backoff.ts";
import { interpretDelivery } from "../oslo/interpret-delivery.ts";
import type { MappingTarget } from "../oslo/map-notification.ts";
import { TransitionTwins } from "../oslo/transition-twins.ts";
import type { CollectorCounts } from "./collector-counts.ts";
import type { Outbox } from "./outbox.ts";
import { atBound } from "./outbox-bound.ts";

export type Verdict = "ack" | "requeue";

/** Why the consumer should not take deliveries now, and when to ask again. */
export type Gate = { open: true } | { open: false; reason: "bound" | "refused"; retryMs: number };

/** The structural subset of a pino logger used here. */
interface IntakeLogger {
  warn(object: object, message: string): void;
  debug(object: object, message: string): void;
}

interface IntakeOptions {
  outbox: Outbox;
  target: MappingTarget;
  counts: CollectorCounts;
  log: IntakeLogger;
  now?: () => number;
  /** Wait after a refused write before deliveries are taken again: 1 s doubling to 30 s. */
  refusalBackoff?: BackoffPolicy;
}

/** How often a consumer paused at the bound looks at the depth again. */
const boundRecheckMs = 100;

export class Intake {
  readonly #options: IntakeOptions;
  readonly #now: () => number;
  #refusals = 0;
  #refusedUntil = 0;
  /** The transitions booked lately, so a cloud sending nova's two formats books each once (decision 284). */
  readonly #twins = new TransitionTwins();

  constructor(options: IntakeOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** One verdict per body, in order. */
  handle(bodies: readonly Uint8Array[]): Verdict[] {
    const { outbox, target, counts, log } = this.#options;
    const outcomes = bodies.map((body) => interpretDelivery(body, target, this.#twins));
    const jsons: string[] = [];
    for (const outcome of outcomes) if (outcome.outcome === "consumed") jsons.push(outcome.event_json);
    let taken = 0;
    if (jsons.length > 0) {
      try {
        taken = outbox.add(jsons);
        this.#refusals = 0;
      } catch (error) {
        const waitMs = backoffDelay(this.#policy, this.#refusals++, 0);
        this.#refusedUntil = this.#now() + waitMs;
        log.warn(
          { err: error, requeued: jsons.length, retry_in_ms: waitMs },
          "the outbox refuses writes, requeueing the notifications and pausing the consumer",
        );
      }
    }
    let consumedIndex = 0;
    return outcomes.map((outcome, i) => {
      if (outcome.outcome === "consumed") {
        if (consumedIndex++ >= taken) return "requeue";
        counts.consumed(outcome.event_type);
        return "ack";
      }
      if (outcome.outcome === "skipped") {
        counts.skipped(outcome.event_type);
        log.debug({ event_type: outcome.event_type, reason: outcome.reason }, "skipped");
      } else {
        counts.unparseable(outcome.event_type);
        log.warn(
          { event_type: outcome.event_type, reason: outcome.reason, bytes: bodies[i]?.byteLength },
          "unparseable delivery acknowledged",
        );
      }
      return "ack";
    });
  }

  /** Whether deliveries may be taken now. */
  gate(): Gate {
    const wait = this.#refusedUntil - this.#now();
    if (wait > 0) return { open: false, reason: "refused", retryMs: wait };
    const { outbox } = this.#options;
    if (atBound(outbox.depth, outbox.maxEvents))
      return { open: false, reason: "bound", retryMs: boundRecheckMs };
    return { open: true };
  }

  get #policy(): BackoffPolicy {
    return this.#options.refusalBackoff ?? { initialMs: 1000, maxMs: 30_000 };
  }
}
