/**
 * The sender's batch size under 413 answers (docs/collector.md#delivery-to-the-reporting-api): a 413 halves it until a batch fits, and
 * each accepted batch grows it back by a quarter, up to `SVC_OSC_BATCH_MAX` (decision 264). Growing
 * slower than it shrinks keeps a proxy's body limit from being hit on every other call.
 */

export function shrinkBatch(size: number): number {
  return Math.max(1, Math.floor(size / 2));
}

export function growBatch(size: number, max: number): number {
  return Math.min(max, size + Math.max(1, Math.ceil(size / 4)));
}
