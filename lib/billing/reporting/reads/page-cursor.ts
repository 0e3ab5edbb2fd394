import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isRfc3339 } from "../../../foundation/time/instant.ts";

const isCanonicalInstant = (text: string) => isRfc3339(text) && new Date(text).toISOString() === text;

/** A position in a list's order: the sort key of the last item served, member by member. */
export type Position = readonly (string | number)[];

/**
 * The opaque `next_cursor` of the four paged lists: the sort key of the last item served, as
 * base64url JSON. It holds a position only, never a filter, so it combines with any filter (spec:
 * those filters apply from that position onwards), and a list's order being total (its key is unique)
 * means the next page starts strictly after it: no duplicate, no gap, also while rows are added.
 */
function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

const refused = () =>
  new ValidationError("the cursor was not given by this list", [
    { loc: "query.cursor", msg: "is not a cursor this list gave" },
  ]);

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The position a cursor names, checked against the list's key shape, one letter per member: `s` a
 * string, `n` a safe integer, `t` a canonical instant, `u` a UUID; so a forged cursor is a 400, never a
 * query the database refuses.
 */
export function decodeCursor(cursor: string, shape: string): Position {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refused();
  }
  if (!Array.isArray(value) || value.length !== shape.length) throw refused();
  for (const [i, kind] of [...shape].entries()) {
    const member: unknown = value[i];
    if (kind === "s" && (typeof member !== "string" || member.includes("\u0000"))) throw refused();
    if (kind === "n" && (typeof member !== "number" || !Number.isSafeInteger(member))) throw refused();
    if (kind === "t" && (typeof member !== "string" || !isCanonicalInstant(member))) throw refused();
    if (kind === "u" && (typeof member !== "string" || !uuid.test(member))) throw refused();
  }
  return value as Position;
}

/** The page envelope: one row more than the limit was read to know whether another page exists. */
export function pageOf<R, T>(
  rows: readonly R[],
  limit: number,
  item: (row: R) => T,
  position: (row: R) => Position,
): { items: T[]; next_cursor: string | null } {
  const served = rows.slice(0, limit);
  const last = served.at(-1);
  return {
    items: served.map(item),
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null,
  };
}
