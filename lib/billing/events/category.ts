type EventCategory = "create" | "update" | "delete";

/**
 * Category from the event type alone: a dot-separated part equal to `create` makes a create, one equal
 * to `delete` a delete, anything else an update. `sync.create` and friends follow the same rule.
 * A type holding both parts is taken as a delete: the later fact wins, and no real type carries both.
 */
export function categoryOf(eventType: string): EventCategory {
  let category = known.get(eventType);
  if (category === undefined) {
    const parts = eventType.split(".");
    category = parts.includes("delete") ? "delete" : parts.includes("create") ? "create" : "update";
    if (known.size < knownLimit) known.set(eventType, category);
  }
  return category;
}

/**
 * Categories of the types seen so far: a month asks for one per event, over a few dozen types
 * (decision 429). Bounded, so a stream of odd types cannot grow it without end.
 */
const known = new Map<string, EventCategory>();
const knownLimit = 1_000;

/** Rank used to order events of one resource that share a timestamp: create, then update, then delete. */
export function categoryRank(category: EventCategory): number {
  return category === "create" ? 0 : category === "update" ? 1 : 2;
}
