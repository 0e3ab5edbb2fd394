export type EventCategory = "create" | "update" | "delete";

/**
 * Category from the event type alone: a dot-separated part equal to `create` makes a create, one equal
 * to `delete` a delete, anything else an update. `sync.create` and friends follow the same rule.
 * A type holding both parts is taken as a delete: the later fact wins, and no real type carries both.
 */
export function categoryOf(eventType: string): EventCategory {
  // Tested in place rather than split: every fold and every ingest asks this for every event.
  if (deletePart.test(eventType)) return "delete";
  if (createPart.test(eventType)) return "create";
  return "update";
}

const deletePart = /(?:^|\.)delete(?:\.|$)/;
const createPart = /(?:^|\.)create(?:\.|$)/;

/** Rank used to order events of one resource that share a timestamp: create, then update, then delete. */
export function categoryRank(category: EventCategory): number {
  return category === "create" ? 0 : category === "update" ? 1 : 2;
}
