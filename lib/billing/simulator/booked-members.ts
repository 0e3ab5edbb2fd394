import type { Oracle, OracleInterval } from "./oracle.ts";

/** Listeners and pools a sync booked on a load balancer, from the sync's instant on. */
export interface MemberBooking {
  resource_id: string;
  /** The sync's run instant (RFC 3339 UTC): where the projection's interval splits. */
  from: string;
  listeners: number;
  pools: number;
}

function split(intervals: readonly OracleInterval[], booking: MemberBooking): OracleInterval[] {
  const members = { listeners: booking.listeners, pools: booking.pools };
  // The booking sets the members; the rest of the size (a flavor) stays.
  return intervals.flatMap((i) => {
    if (i.to <= booking.from) return [i];
    if (i.from >= booking.from) return [{ ...i, size: { ...i.size, ...members } }];
    return [
      { ...i, to: booking.from },
      { ...i, from: booking.from, size: { ...i.size, ...members } },
    ];
  });
}

/**
 * What the bill of a month must say once reconciliation booked listeners and pools (pure, decision
 * 181): the oracle states the month's truth, where load balancers have none (decision 236); the
 * platform showed some from an operator's change, which no notification carries, so the only
 * booking is the sync's, dated at its run instant (decision 170). Each booked load balancer's
 * intervals split there and carry the booked size from then on; nothing else moves. Bookings apply
 * in the order given.
 */
export function withBookedMembers(oracle: Oracle, bookings: readonly MemberBooking[]): Oracle {
  return {
    ...oracle,
    resources: oracle.resources.map((r) => {
      if (r.resource_type !== "loadbalancer") return r;
      const mine = bookings.filter((b) => b.resource_id === r.resource_id);
      return mine.length === 0 ? r : { ...r, intervals: mine.reduce(split, r.intervals) };
    }),
  };
}
