import type { CanonicalEvent } from "../events/event.ts";
import { platformA } from "../events/event.ts";
import { interpretDelivery } from "../oslo/interpret-delivery.ts";
import { TransitionTwins } from "../oslo/transition-twins.ts";
import type { NotificationLine } from "./notification-line.ts";

/**
 * The events a collector would post for these lines, computed with the collector's own parser and
 * mapping (`lib/billing/oslo`): one per consumed notification, in bus order, produced one at a time so a
 * large month is written without holding its events. A duplicate publish yields its
 * event again, as the collector would; ingest deduplicates it by message id. A twin of a transition
 * booked already (nova's other format) yields none, as the collector's memory of them decides.
 */
export function* streamEvents(lines: Iterable<NotificationLine>, cloud: string): Generator<CanonicalEvent> {
  const twins = new TransitionTwins();
  for (const line of lines) {
    const outcome = interpretDelivery(line.body, { platform: platformA, cloud }, twins);
    if (outcome.outcome === "consumed") yield outcome.event;
  }
}
