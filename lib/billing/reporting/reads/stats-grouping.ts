import { ValidationError } from "../../../foundation/errors/svc-error.ts";

/**
 * A `group_by` list: comma-separated members of `allowed`, each given once, holding every member of
 * `required`; anything else is 400 at `query.group_by`. Answers the members in the list's fixed order.
 */
export function parseGroupBy<M extends string>(
  text: string,
  allowed: readonly M[],
  required: readonly M[],
): M[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const part of text.split(",")) {
    if (!(allowed as readonly string[]).includes(part))
      problems.push(`${JSON.stringify(part)} is not one of ${allowed.join(", ")}`);
    else if (seen.has(part)) problems.push(`${part} is given more than once`);
    seen.add(part);
  }
  const missing = required.filter((m) => !seen.has(m));
  if (missing.length > 0) problems.push(`must include ${missing.join(" and ")}`);
  if (problems.length > 0) {
    throw new ValidationError("group_by is not a valid grouping", [
      { loc: "query.group_by", msg: problems.join("; ") },
    ]);
  }
  return allowed.filter((m) => seen.has(m));
}

/**
 * Items one stats answer may hold, counted on the finest grouping. Beyond it the answer is
 * `result_too_large` (422): stats are never paginated, and such an answer wants a narrower question.
 */
export const maxStatsItems = 10_000;

type Finest = Record<string, string | number | null> & { count: number };

/**
 * Rolls counts of the finest grouping up to the requested members, and orders the items by `order`
 * with a member outside the grouping (or null) comparing as the empty string. Counting once at the
 * finest grouping is what makes the size bound the same whatever `group_by` names.
 */
export function rollUp<M extends string>(
  rows: readonly Finest[],
  groupBy: readonly M[],
  order: readonly string[],
): (Partial<Record<M, string | null>> & { count: number })[] {
  const items = new Map<string, Partial<Record<M, string | null>> & { count: number }>();
  for (const row of rows) {
    const key = JSON.stringify(groupBy.map((m) => row[m] ?? null));
    const held = items.get(key);
    if (held !== undefined) held.count += row.count;
    else {
      const item = { count: row.count } as Partial<Record<M, string | null>> & { count: number };
      for (const m of groupBy) (item as Record<string, unknown>)[m] = row[m] ?? null;
      items.set(key, item);
    }
  }
  const text = (item: object, member: string) => {
    const v = (item as Record<string, unknown>)[member];
    return v === undefined || v === null ? "" : String(v);
  };
  return [...items.values()].sort((a, b) => {
    for (const member of order) {
      const x = text(a, member);
      const y = text(b, member);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}
