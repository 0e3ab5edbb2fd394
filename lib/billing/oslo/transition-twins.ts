/**
 * The memory that books a transition once when a service states it twice (decision 284): nova with
 * `notification_format = both` sends every instance transition as a legacy notification and as a
 * versioned one, each with its own message id and its own timestamp (two calls of the notifier,
 * microseconds to milliseconds apart), so ingest's key (event id, timestamp) cannot tell they are one.
 * Both map to one event type, resource and request; the first of them to be mapped is booked and any
 * other notification of the same transition is a twin, skipped. The very same notification again (a
 * redelivery: same event id) is booked again, as ingest deduplicates it; so a delivery requeued after
 * it was remembered is not lost.
 *
 * Bounded by arrival, not by time: the last `maxEntries` transitions are remembered (twins leave one
 * nova process back to back, and a released held share or a backlog keeps them adjacent however old
 * their timestamps). A twin met after its transition was forgotten, by another collector consuming
 * the same queue, or after a restart is booked as a second event of the same state and size, which
 * the fold makes no change of.
 */
export class TransitionTwins {
  readonly #booked = new Map<string, string>();
  readonly #maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 20_000;
  }

  /** Transitions remembered now. */
  get size(): number {
    return this.#booked.size;
  }

  /**
   * Whether the event `eventId` of the transition `key` is booked: the first notification of its
   * transition, or that notification again. False for a twin.
   */
  admit(key: string, eventId: string): boolean {
    const seen = this.#booked.get(key);
    if (seen !== undefined) return seen === eventId;
    this.#booked.set(key, eventId);
    if (this.#booked.size > this.#maxEntries) {
      const oldest = this.#booked.keys().next();
      if (oldest.done !== true) this.#booked.delete(oldest.value);
    }
    return true;
  }
}
