import { utcDateTime } from "../../foundation/time/utc-text.ts";
import { publicNetworkId } from "./catalog.ts";
import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, type RenderInput } from "./notification-context.ts";

const isoZ = (ms: number) => `${utcDateTime(ms, "T")}Z`;

/**
 * neutron's API notification for a floating IP (`neutron.api.v2.base`): the resource under
 * `floatingip`, and on a delete also `floatingip_id`.
 */
export function neutronSpec(eventType: string): Spec<RenderInput> {
  const associated = eventType !== "floatingip.create.end";
  const floatingip: Spec<RenderInput> = {
    id: hole((i) => i.resource.resource_id),
    tenant_id: hole((i) => i.truth.project_id),
    project_id: hole((i) => i.truth.project_id),
    floating_ip_address: hole((i) => String(i.resource.attributes.address)),
    floating_network_id: publicNetworkId,
    router_id: associated ? hole((i) => String(i.resource.attributes.router_id)) : null,
    port_id: hole((i) => String(i.resource.attributes.port_id)),
    fixed_ip_address: hole((i) => String(i.resource.attributes.fixed_ip_address)),
    status: hole((i) => i.truth.state.toUpperCase()),
    description: "",
    dns_domain: "",
    dns_name: "",
    tags: [],
    created_at: hole((i) => isoZ(i.created.at)),
    updated_at: hole((i) => isoZ(i.step.at)),
    revision_number: associated ? 2 : 0,
  };
  const payload: Spec<RenderInput> =
    eventType === "floatingip.delete.end"
      ? { floatingip_id: hole((i) => i.resource.resource_id), floatingip }
      : { floatingip };
  return innerMessageSpec("network.controller-01", eventType, payload);
}
