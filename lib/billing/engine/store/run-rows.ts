import { copyIntoStatement } from "../../../foundation/postgres/table-columns.ts";
import { lineDeltas, ratedLines, usage } from "./engine-schema.ts";

/**
 * The COPY statements of a run's bulk rows, their columns named from the schema once: a row's values
 * are written in this order, the resource's leading fields (`resourceLead`) first.
 */
const resourceLead = ["runId", "cloud", "platform", "resourceType", "resourceId"] as const;

export const usageCopy = copyIntoStatement(usage, [
  ...resourceLead,
  "projectId",
  "from",
  "to",
  "state",
  "size",
  "counters",
]);

export const ratedLinesCopy = copyIntoStatement(ratedLines, [
  ...resourceLead,
  "projectId",
  "dimension",
  "quantity",
  "unitPrice",
  "amount",
]);

export const lineDeltasCopy = copyIntoStatement(lineDeltas, [
  "runId",
  "noteCloud",
  "noteProjectId",
  "cloud",
  "platform",
  "resourceType",
  "resourceId",
  "projectId",
  "dimension",
  "unitPrice",
  "oldQuantity",
  "newQuantity",
  "oldAmount",
  "newAmount",
  "delta",
]);
