import type { JsonObject } from "../events/event.ts";
import { publicNetworkId } from "./catalog.ts";
import { innerMessage, pythonTime, type RenderInput } from "./notification-context.ts";

/**
 * neutron's API notification for a floating IP (`neutron.api.v2.base`): the resource under
 * `floatingip`, and on a delete also `floatingip_id`.
 */
export function neutronMessage(input: RenderInput): JsonObject {
  const { resource, step, truth, created } = input;
  const attributes = resource.attributes;
  const associated = step.event_type !== "floatingip.create.end";
  const floatingip: JsonObject = {
    id: resource.resource_id,
    tenant_id: truth.project_id,
    project_id: truth.project_id,
    floating_ip_address: String(attributes.address),
    floating_network_id: publicNetworkId,
    router_id: associated ? String(attributes.router_id) : null,
    port_id: String(attributes.port_id),
    fixed_ip_address: String(attributes.fixed_ip_address),
    status: truth.state.toUpperCase(),
    description: "",
    dns_domain: "",
    dns_name: "",
    tags: [],
    created_at: pythonTime(created.at).replace(" ", "T").replace("+00:00", "Z"),
    updated_at: pythonTime(step.at).replace(" ", "T").replace("+00:00", "Z"),
    revision_number: associated ? 2 : 0,
  };
  const payload: JsonObject =
    step.event_type === "floatingip.delete.end"
      ? { floatingip_id: resource.resource_id, floatingip }
      : { floatingip };
  return innerMessage(input, "network.controller-01", step.event_type, payload);
}
