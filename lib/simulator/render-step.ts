import type { JsonObject } from "../events/event.ts";
import { cinderMessage } from "./cinder-notification.ts";
import { glanceMessage } from "./glance-notification.ts";
import type { ResourceType, SimResource, Tenant, Truth } from "./month.ts";
import { neutronMessage } from "./neutron-notification.ts";
import type { RenderInput } from "./notification-context.ts";
import { notificationTopic } from "./notification-line.ts";
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

export interface RenderedStep {
  exchange: string;
  routing_key: string;
  input: RenderInput;
  message: JsonObject;
}

/** The message of one step, rendered again (the refused twins are made from it). */
export function renderMessage(input: RenderInput): JsonObject {
  return services[input.resource.resource_type].render(input);
}

/** Renders every step of a resource, in order, as the inner oslo message its service would send. */
export function renderResource(resource: SimResource, tenants: ReadonlyMap<string, Tenant>): RenderedStep[] {
  const service = services[resource.resource_type];
  const first = resource.steps.find((s) => s.billable && s.truth !== null);
  if (first?.truth == null) return [];
  const created = { at: first.at, truth: first.truth };
  let last: Truth = first.truth;
  const out: RenderedStep[] = [];
  for (const step of resource.steps) {
    const truth = step.truth ?? last;
    last = truth;
    const tenant = tenants.get(truth.project_id);
    if (tenant === undefined) throw new RangeError(`no tenant ${truth.project_id}`);
    const input: RenderInput = { resource, step, truth, created, tenant };
    out.push({
      exchange: service.exchange,
      routing_key: notificationTopic,
      input,
      message: service.render(input),
    });
  }
  return out;
}
