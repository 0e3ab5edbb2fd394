/**
 * One line of `notifications.jsonl` / `held-back.jsonl` (docs/simulator.md#writing-a-month-to-files): the exchange and routing key a
 * notification is published under, and its raw body, an oslo messagingv2 envelope.
 */
export interface NotificationLine {
  exchange: string;
  routing_key: string;
  body: string;
}

/** The exchanges a simulated notification may use; volume notifications go to `platform_a`, not `cinder`. */
export const declaredExchanges = [
  "nova",
  "platform_a",
  "neutron",
  "glance",
  "octavia",
  "keystone",
  "designate",
  "barbican",
] as const;

/** oslo's default notification topic at INFO priority; for a topic exchange the topic is the routing key. */
export const notificationTopic = "notifications.info";

export function encodeLine(line: NotificationLine): string {
  return JSON.stringify({ exchange: line.exchange, routing_key: line.routing_key, body: line.body });
}
