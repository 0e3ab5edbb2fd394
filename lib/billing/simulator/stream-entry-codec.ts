import type { SortCodec } from "../../foundation/collections/external-sort.ts";
import type { ResourceAttributes, ResourceType, SimResource, Step, Tenant, Truth } from "./month.ts";
import { resourceKey } from "./month.ts";
import { formsOf, type StreamEntry } from "./month-stream.ts";
import type { NovaFormat } from "./nova-format.ts";

type Encoded = [
  type: ResourceType,
  id: string,
  workload: string,
  preExisting: boolean,
  attributes: ResourceAttributes,
  step: Step,
  /** The input's truth when the step carries another (a delete), else 0. */
  truth: Truth | 0,
  createdAt: number,
  /** The created truth when it is another than the input's, else 0 (most entries: a resource's truths are shared until they change). */
  createdTruth: Truth | 0,
];

/**
 * An entry of the month (before the switches act: no twin) as one line of text, with what its
 * rendering reads: the resource's facts without its other steps, the step, its truths. A month record
 * carries it when a refused twin may be made of the entry (decision 252). The tenant is looked up
 * again by owner, as `stepInputs` found it; the forms follow from the month's nova format.
 */
export function streamEntryCodec(
  tenants: ReadonlyMap<string, Tenant>,
  novaFormat: NovaFormat = "legacy",
): SortCodec<StreamEntry> {
  return {
    encode(entry) {
      const { resource, step, truth, created } = entry.input;
      const encoded: Encoded = [
        resource.resource_type,
        resource.resource_id,
        resource.workload,
        resource.pre_existing,
        resource.attributes,
        step,
        truth === step.truth ? 0 : truth,
        created.at,
        created.truth === truth ? 0 : created.truth,
      ];
      return JSON.stringify(encoded);
    },
    decode(line) {
      const [type, id, workload, preExisting, attributes, step, truth, createdAt, createdTruth] = JSON.parse(
        line,
      ) as Encoded;
      const resource: SimResource = {
        resource_type: type,
        resource_id: id,
        workload,
        pre_existing: preExisting,
        attributes,
        steps: [],
        traffic: null,
      };
      const stated = truth === 0 ? (step.truth as Truth) : truth;
      const tenant = tenants.get(stated.project_id);
      if (tenant === undefined) throw new RangeError(`no tenant ${stated.project_id}`);
      return {
        input: {
          resource,
          step,
          truth: stated,
          created: { at: createdAt, truth: createdTruth === 0 ? stated : createdTruth },
          tenant,
        },
        billable: step.billable,
        twin: null,
        key: resourceKey(resource),
        forms: formsOf(novaFormat, resource),
      };
    },
  };
}
