import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { firstString, objectAt, pick, stringAt } from "./payload-fields.ts";

const providerMembers = [
  "floating_ip_address",
  "floating_network_id",
  "router_id",
  "port_id",
  "fixed_ip_address",
  "status",
] as const;

/**
 * neutron's API notifications for floating IPs (`floatingip.create.end`, `floatingip.delete.end`).
 * Only create and delete are billable (docs/oslo-mapping.md#what-each-service-sends-and-what-we-book): association updates map to nothing.
 * neutron's payload has no ip_version for a floating IP; the address tells it.
 */
export const mapNeutron: ServiceMapper = (eventType, payload, raw) => {
  if (eventType !== "floatingip.create.end" && eventType !== "floatingip.delete.end") {
    return "not a floating IP create or delete";
  }
  const fip = objectAt(payload, "floatingip");
  const change: MappedChange = {
    resource_type: "floating_ip",
    resource_id: stringAt(fip, "id") ?? stringAt(payload, "floatingip_id") ?? "",
    project_id:
      firstString(fip, "project_id", "tenant_id") ??
      firstString(raw, "_context_project_id", "_context_tenant_id") ??
      "",
    provider: pick(fip, providerMembers),
  };
  if (eventType === "floatingip.delete.end") return change;
  const address = stringAt(fip, "floating_ip_address") ?? "";
  change.state = (stringAt(fip, "status") ?? "").toLowerCase();
  change.size = { ip_version: address.includes(":") ? 6 : 4 };
  return change;
};
