/**
 * A simulator month as the collector's tests and bench publish it: the notification lines in bus
 * order, what the collector must count for them, and what the reporting database must hold after, from
 * the simulator's own oracle and the events `lib/billing/oslo` maps (the same `events.jsonl` computes).
 */
import type { CanonicalEvent } from "../../lib/billing/events/event.ts";
import { platformA } from "../../lib/billing/events/event.ts";
import { interpretDelivery } from "../../lib/billing/oslo/interpret-delivery.ts";
import { TransitionTwins } from "../../lib/billing/oslo/transition-twins.ts";
import type { FaultSwitch } from "../../lib/billing/simulator/fault-switch.ts";
import { generateMonth } from "../../lib/billing/simulator/generate-month.ts";
import { entryLines, monthStream } from "../../lib/billing/simulator/month-stream.ts";
import type { NotificationLine } from "../../lib/billing/simulator/notification-line.ts";
import { buildOracle, type Oracle } from "../../lib/billing/simulator/oracle.ts";
import { parsePeriod } from "../../lib/foundation/time/period.ts";
import { byEventKey } from "./reporting-api.ts";

export interface SimulatedMonth {
  lines: NotificationLine[];
  oracle: Oracle;
  /** Outcome counts the collector must reach for the lines on `exchanges`. */
  expected: { consumed: number; skipped: number; unparseable: number };
  /** Distinct (event_id, timestamp) pairs the database must hold, sorted as `storedEvents` sorts. */
  events: { event_id: string; timestamp: string }[];
}

export function simulatedMonth(options: {
  seed: number;
  cloud: string;
  period?: string;
  tenants?: number;
  faults?: readonly FaultSwitch[];
  /** Exchanges the collector binds: lines on others never reach it. */
  exchanges: readonly string[];
}): SimulatedMonth {
  const faults = options.faults ?? [];
  const month = generateMonth({
    seed: options.seed,
    period: parsePeriod(options.period ?? "2026-10"),
    cloud: options.cloud,
    scale: { tenants: options.tenants ?? 10 },
  });
  const stream = monthStream(month, faults);
  const lines = stream.published.flatMap(entryLines);
  const { expected, events } = deliveryOutcomes(lines, {
    cloud: options.cloud,
    exchanges: options.exchanges,
  });
  return {
    lines,
    oracle: buildOracle(month, faults, stream.marks),
    expected,
    events,
  };
}

/**
 * What a collector bound to `exchanges` makes of notification lines, by the one mapping (`lib/billing/oslo`):
 * its outcome counts, and the distinct (event_id, timestamp) pairs ingest must store, sorted as
 * `storedEvents` sorts. Lines on another exchange never reach it.
 */
export function deliveryOutcomes(
  lines: Iterable<NotificationLine>,
  options: { cloud: string; exchanges: readonly string[] },
): Pick<SimulatedMonth, "expected" | "events"> {
  const expected = { consumed: 0, skipped: 0, unparseable: 0 };
  const events = new Map<string, { event_id: string; timestamp: string }>();
  // One memory for the whole stream, as one collector keeps it.
  const twins = new TransitionTwins();
  for (const line of lines) {
    if (!options.exchanges.includes(line.exchange)) continue;
    const outcome = interpretDelivery(line.body, { platform: platformA, cloud: options.cloud }, twins);
    expected[outcome.outcome]++;
    if (outcome.outcome === "consumed") {
      const event: CanonicalEvent = outcome.event;
      events.set(`${event.event_id}\u0000${event.timestamp}`, {
        event_id: event.event_id,
        timestamp: event.timestamp,
      });
    }
  }
  return { expected, events: [...events.values()].sort(byEventKey) };
}
