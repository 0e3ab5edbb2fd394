import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, type RenderInput } from "./notification-context.ts";

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/**
 * octavia's load balancer notification: the complete load balancer dict (octavia's event notification
 * documentation), `publisher_id` null as in its sample. A load balancer created on its own has no
 * listeners or pools at `create.end`.
 */
export function octaviaSpec(eventType: string): Spec<RenderInput> {
  const deleted = eventType === "octavia.loadbalancer.delete.end";
  const payload: Spec<RenderInput> = {
    enabled: true,
    availability_zone: null,
    created_at: hole((i) => iso(i.created.at)),
    description: "",
    flavor_id: hole((i) => (typeof i.truth.size.flavor === "string" ? i.truth.size.flavor : null)),
    id: hole((i) => i.resource.resource_id),
    listeners: [],
    name: hole((i) => String(i.resource.attributes.name)),
    operating_status: deleted ? "OFFLINE" : "ONLINE",
    pools: [],
    project_id: hole((i) => i.truth.project_id),
    provider: "amphora",
    provisioning_status: deleted ? "DELETED" : hole((i) => i.truth.state.toUpperCase()),
    tenant_id: hole((i) => i.truth.project_id),
    updated_at: hole((i) => iso(i.step.at)),
    vip_address: hole((i) => String(i.resource.attributes.vip_address)),
    vip_network_id: null,
    vip_port_id: hole((i) => String(i.resource.attributes.vip_port_id)),
    vip_qos_policy_id: null,
    vip_subnet_id: hole((i) => String(i.resource.attributes.vip_subnet_id)),
  };
  return innerMessageSpec(null, eventType, payload);
}
