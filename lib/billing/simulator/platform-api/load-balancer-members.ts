interface Members {
  listeners: number;
  pools: number;
  /** The virtual instant they were set: shown from then on, and the load balancer's `updated_at`. */
  at: number;
}

/** A member id: the load balancer's uuid with its last twelve digits replaced by kind and index. */
function memberId(loadBalancerId: string, kind: "listener" | "pool", index: number): string {
  const tail = `${kind === "listener" ? "1" : "2"}${index.toString(16).padStart(11, "0")}`;
  return `${loadBalancerId.slice(0, 24)}${tail}`;
}

/**
 * Listeners and pools put on simulated load balancers from outside the month. The generated month
 * gives them none (decision 236, so `compare` stays exact); a reconciliation test or scenario adds
 * some at a virtual instant, and octavia's listings show them from that instant on, as a real cloud
 * shows what an operator added through its API (which sends no notification a collector books).
 * Each load balancer keeps every setting with its instant, so a later one leaves the earlier shown
 * before it (decision 180).
 */
export class LoadBalancerMembers {
  readonly #members = new Map<string, Members[]>();

  /** From virtual instant `at` on, the load balancer has this many listeners and pools. */
  set(loadBalancerId: string, counts: { listeners: number; pools: number }, at: number): void {
    const kept = (this.#members.get(loadBalancerId) ?? []).filter((m) => m.at < at);
    this.#members.set(loadBalancerId, [...kept, { ...counts, at }]);
  }

  /** The ids shown on a load balancer at `now`, and when they changed; null while it has none set. */
  of(
    loadBalancerId: string,
    now: number,
  ): { listeners: { id: string }[]; pools: { id: string }[]; at: number } | null {
    const m = (this.#members.get(loadBalancerId) ?? []).findLast((s) => s.at <= now);
    if (m === undefined) return null;
    const ids = (kind: "listener" | "pool", n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: memberId(loadBalancerId, kind, i) }));
    return { listeners: ids("listener", m.listeners), pools: ids("pool", m.pools), at: m.at };
  }
}
