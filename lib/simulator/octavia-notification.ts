import type { JsonObject } from "../events/event.ts";
import { innerMessage, type RenderInput } from "./notification-context.ts";

/**
 * octavia's load balancer notification: the complete load balancer dict (octavia's event notification
 * documentation), `publisher_id` null as in its sample. A load balancer created on its own has no
 * listeners or pools at `create.end`.
 */
export function octaviaMessage(input: RenderInput): JsonObject {
  const { resource, step, truth, created } = input;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  const deleted = step.event_type === "octavia.loadbalancer.delete.end";
  const payload: JsonObject = {
    enabled: true,
    availability_zone: null,
    created_at: iso(created.at),
    description: "",
    flavor_id: null,
    id: resource.resource_id,
    listeners: [],
    name: String(resource.attributes.name),
    operating_status: deleted ? "OFFLINE" : "ONLINE",
    pools: [],
    project_id: truth.project_id,
    provider: "amphora",
    provisioning_status: deleted ? "DELETED" : truth.state.toUpperCase(),
    tenant_id: truth.project_id,
    updated_at: iso(step.at),
    vip_address: String(resource.attributes.vip_address),
    vip_network_id: null,
    vip_port_id: String(resource.attributes.vip_port_id),
    vip_qos_policy_id: null,
    vip_subnet_id: String(resource.attributes.vip_subnet_id),
  };
  return innerMessage(input, null, step.event_type, payload);
}
