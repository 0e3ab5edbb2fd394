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

const createEnd = "octavia.loadbalancer.create.end";
const updateEnd = "octavia.loadbalancer.update.end";
const deleteEnd = "octavia.loadbalancer.delete.end";

/**
 * octavia's load balancer notifications, in both shapes it has (decision 282): the worker's
 * (`octavia/controller/worker/v2/tasks/notification_tasks.py`: the provider dict, id under
 * `loadbalancer_id`, no provisioning status, sent once the flow marked the load balancer ACTIVE) and
 * the documented one (`doc/source/admin/event-notifications.rst`: the API's dict, `id` and a
 * `provisioning_status` taken when the request was accepted).
 *
 * - `create.end` books the load balancer with the listeners and pools it lists (none when created on
 *   its own), active unless it states a settled status of its own (`ERROR`): a `PENDING_CREATE` in a
 *   create.end is the request's snapshot, the `.end` says the create finished.
 * - `update.end` is booked as an update of the state only when the status it ends in is settled:
 *   ACTIVE or ERROR, or none stated (the worker sends it after marking the load balancer ACTIVE). A
 *   pending status maps to nothing. Listeners and pools stay booked by reconciliation only (docs/simulator.md#the-oracle,
 *   docs/reconciliation.md), so the update carries no size.
 * - `delete.end` ends it.
 */
export const mapOctavia: ServiceMapper = (eventType, payload, raw) => {
  if (eventType !== createEnd && eventType !== updateEnd && eventType !== deleteEnd) {
    return "not a load balancer create, update or delete";
  }
  const status = (stringAt(payload, "provisioning_status") ?? "").toLowerCase();
  const change: MappedChange = {
    resource_type: "loadbalancer",
    resource_id: firstString(payload, "loadbalancer_id", "id") ?? "",
    project_id:
      firstString(payload, "project_id", "tenant_id") ??
      firstString(raw, "_context_project_id", "_context_tenant") ??
      "",
    provider: pick(payload, providerMembers),
  };
  if (eventType === deleteEnd) return change;
  if (eventType === updateEnd) {
    if (status !== "" && status !== "active" && status !== "error") {
      return "an update that has not settled (pending provisioning status)";
    }
    change.state = status === "" ? "active" : status;
    return change;
  }
  change.state = status === "" || status.startsWith("pending_") ? "active" : status;
  change.size = {
    listeners: arrayLengthAt(payload, "listeners") ?? 0,
    pools: arrayLengthAt(payload, "pools") ?? 0,
  };
  // A flavor a price may be chosen by (docs/pricing-model.md#prices-by-attribute), when it has one.
  const flavor = stringAt(payload, "flavor_id");
  if (flavor !== null && flavor !== "") change.size.flavor = flavor;
  return change;
};
