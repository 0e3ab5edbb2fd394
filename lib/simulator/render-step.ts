import type { JsonObject } from "../events/event.ts";
import { encodeEnvelope } from "../oslo/envelope.ts";
import { cinderMessage } from "./cinder-notification.ts";
import { glanceMessage } from "./glance-notification.ts";
import type { ResourceType, SimResource, Tenant, Truth } from "./month.ts";
import { neutronMessage } from "./neutron-notification.ts";
import type { RenderInput } from "./notification-context.ts";
import { type NotificationLine, notificationTopic } from "./notification-line.ts";
import { novaMessage } from "./nova-notification.ts";
import { octaviaMessage } from "./octavia-notification.ts";

/** The exchange each service publishes on; cinder's volume notifications use `platform_a` (spec 2). */
const services: Readonly<
  Record<ResourceType, { exchange: string; render: (input: RenderInput) => JsonObject }>
> = {
  instance: { exchange: "nova", render: novaMessage },
  volume: { exchange: "platform_a", render: cinderMessage },
  floating_ip: { exchange: "neutron", render: neutronMessage },
  image: { exchange: "glance", render: glanceMessage },
  loadbalancer: { exchange: "octavia", render: octaviaMessage },
};

/** The inner oslo message of one step, as its service would send it. */
export function renderMessage(input: RenderInput): JsonObject {
  return services[input.resource.resource_type].render(input);
}

/** The exchange the step's service publishes on. */
export function exchangeOf(input: RenderInput): string {
  return services[input.resource.resource_type].exchange;
}

/** The published line of one step: exchange, routing key and the oslo envelope of its message. */
export function renderLine(input: RenderInput): NotificationLine {
  return {
    exchange: exchangeOf(input),
    routing_key: notificationTopic,
    body: encodeEnvelope(renderMessage(input)),
  };
}

/**
 * What each step of a resource needs to be rendered, in order. Messages are rendered only when a line
 * is written, so a month of millions of notifications is never held as text.
 */
export function stepInputs(resource: SimResource, tenants: ReadonlyMap<string, Tenant>): RenderInput[] {
  const first = resource.steps.find((s) => s.billable && s.truth !== null);
  if (first?.truth == null) return [];
  const created = { at: first.at, truth: first.truth };
  let last: Truth = first.truth;
  return resource.steps.map((step) => {
    const truth = step.truth ?? last;
    last = truth;
    const tenant = tenants.get(truth.project_id);
    if (tenant === undefined) throw new RangeError(`no tenant ${truth.project_id}`);
    return { resource, step, truth, created, tenant };
  });
}
