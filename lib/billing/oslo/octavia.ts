import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { arrayLengthAt, firstString, pick, stringAt } from "./payload-fields.ts";

const providerMembers = [
  "name",
  "provisioning_status",
  "operating_status",
  "vip_address",
  "vip_subnet_id",
  "flavor_id",
  "availability_zone",
] as const;

/**
 * octavia's load balancer notifications; the payload is the whole load balancer. Create and delete are
 * booked; `update.end` maps to nothing, because listeners and pools are booked only by reconciliation
 * (spec 2, Oracle). The create books the listeners and pools the load balancer has at that moment,
 * which octavia reports as empty lists for a load balancer created on its own.
 */
export const mapOctavia: ServiceMapper = (eventType, payload, raw) => {
  if (eventType !== "octavia.loadbalancer.create.end" && eventType !== "octavia.loadbalancer.delete.end") {
    return "not a load balancer create or delete";
  }
  const change: MappedChange = {
    resource_type: "loadbalancer",
    resource_id: firstString(payload, "id", "loadbalancer_id") ?? "",
    project_id:
      firstString(payload, "project_id", "tenant_id") ?? firstString(raw, "_context_project_id") ?? "",
    provider: pick(payload, providerMembers),
  };
  if (eventType === "octavia.loadbalancer.delete.end") return change;
  change.state = (stringAt(payload, "provisioning_status") ?? "").toLowerCase();
  change.size = {
    listeners: arrayLengthAt(payload, "listeners") ?? 0,
    pools: arrayLengthAt(payload, "pools") ?? 0,
  };
  return change;
};
