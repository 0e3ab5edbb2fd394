/**
 * How the consumer keeps the outbox under `SVC_OSC_BUFFER_MAX_EVENTS` (docs/collector.md#what-happens-to-a-delivery): it pauses at
 * 90 percent and resumes below, and the broker may have no more deliveries in flight than the last
 * tenth holds, so a paused consumer's stragglers still fit (decision 263).
 */

/** Depth at which the consumer pauses: 90 percent of the bound, at least 1. */
export function pauseDepth(maxEvents: number): number {
  return Math.max(1, Math.ceil(maxEvents * 0.9));
}

/** Whether a consumer should be paused at this depth (it resumes as soon as this is false). */
export function atBound(depth: number, maxEvents: number): boolean {
  return depth >= pauseDepth(maxEvents);
}

/** The most deliveries a group commit waits for; a larger group only delays the acknowledgements. */
const maxPrefetch = 1000;

/**
 * Unacknowledged deliveries the broker may send (basic.qos): the room between the pause depth and the
 * bound, at most `maxPrefetch`, at least 1.
 */
export function prefetchFor(maxEvents: number): number {
  return Math.max(1, Math.min(maxPrefetch, maxEvents - pauseDepth(maxEvents)));
}
