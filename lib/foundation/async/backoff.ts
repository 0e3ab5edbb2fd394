/**
 * Reconnect delays: doubling from `initialMs` up to `maxMs`, each with up to 25 % jitter off the top
 * so that many clients losing one server do not all come back in the same millisecond. A formula, not
 * a retry wrapper: its callers own their loops (decision 19).
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 250, maxMs: 8000 };

/** Delay before reconnect attempt `attempt` (0-based); `random` is in [0, 1). */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (1 - 0.25 * random));
}
