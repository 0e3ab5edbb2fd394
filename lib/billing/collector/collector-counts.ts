/**
 * The collector's counters (docs/collector.md#http-routes): the three outcome counters labelled
 * by `event_type` and the buffer depth gauge on the registry, and the same counts since the last
 * `summary` line. A delivery is counted when it is acknowledged, so a requeued one counts once, when
 * it is finally taken.
 */
import { Counter, Gauge, type Registry } from "prom-client";

/**
 * Label values are the bus's event types, which anyone who can publish chooses: past this many
 * distinct ones, further types are counted under `other` so a flood of made-up types cannot grow the
 * exposition without end (decision 266).
 */
const maxEventTypeLabels = 500;
const otherEventType = "other";
/** The label of an unparseable delivery that names no event type. */
const unknownEventType = "unknown";

export interface IntervalCounts {
  consumed: number;
  skipped: number;
  unparseable: number;
  delivered: number;
  delivery_errors: number;
}

const zero = (): IntervalCounts => ({
  consumed: 0,
  skipped: 0,
  unparseable: 0,
  delivered: 0,
  delivery_errors: 0,
});

export class CollectorCounts {
  readonly #consumed: Counter<"event_type">;
  readonly #skipped: Counter<"event_type">;
  readonly #unparseable: Counter<"event_type">;
  readonly #labels = new Set<string>();
  #interval = zero();

  constructor(registry: Registry, bufferDepth: () => number) {
    const counter = (name: string, help: string) =>
      new Counter({ name, help, labelNames: ["event_type"], registers: [registry] });
    this.#consumed = counter(
      "svc_collector_consumed_total",
      "Notifications mapped to an event, committed to the outbox and acknowledged",
    );
    this.#skipped = counter(
      "svc_collector_skipped_total",
      "Notifications acknowledged with no event: no mapping for the type, or a mapped event above 64 KiB",
    );
    this.#unparseable = counter(
      "svc_collector_unparseable_total",
      "Deliveries acknowledged unread: above 1 MiB, or not an oslo 2.0 notification",
    );
    new Gauge({
      name: "svc_collector_buffer_depth",
      help: "Events in the outbox, waiting for the Reporting API",
      registers: [registry],
      collect() {
        this.set(bufferDepth());
      },
    });
  }

  #label(eventType: string | null): string {
    if (eventType === null) return unknownEventType;
    if (this.#labels.has(eventType)) return eventType;
    if (this.#labels.size >= maxEventTypeLabels) return otherEventType;
    this.#labels.add(eventType);
    return eventType;
  }

  consumed(eventType: string): void {
    this.#consumed.inc({ event_type: this.#label(eventType) });
    this.#interval.consumed++;
  }

  skipped(eventType: string): void {
    this.#skipped.inc({ event_type: this.#label(eventType) });
    this.#interval.skipped++;
  }

  unparseable(eventType: string | null): void {
    this.#unparseable.inc({ event_type: this.#label(eventType) });
    this.#interval.unparseable++;
  }

  /** Events the API took (stored, or already stored: a duplicate). */
  delivered(events: number): void {
    this.#interval.delivered += events;
  }

  /** Items the API refused (dropped, never retried) and attempts that did not land (retried). */
  deliveryErrors(count: number): void {
    this.#interval.delivery_errors += count;
  }

  /** The counts since the previous call. */
  takeInterval(): IntervalCounts {
    const interval = this.#interval;
    this.#interval = zero();
    return interval;
  }
}
