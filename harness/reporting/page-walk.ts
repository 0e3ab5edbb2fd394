import { expect } from "bun:test";
import fc from "fast-check";
import { call, type TestApp } from "./reporting-test-app.ts";

/**
 * Walking the paged lists (decision 133) in the tests: one walk, and one property shared by every
 * list, so each list is held to the same promise: for any data, filter and limit, following
 * `next_cursor` gives exactly the filtered set in the list's order, each item once, and ends on a page
 * whose `next_cursor` is null.
 */
export type Page<T> = { items: T[]; next_cursor: string | null };

/** Every item of `path` (which may carry filters), page by page at `limit`, until `next_cursor` is null. */
export async function walkPages<T>(app: TestApp, path: string, token: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  const join = path.includes("?") ? "&" : "?";
  for (let pages = 0; pages < 10_000; pages++) {
    const qs: string = cursor === null ? `limit=${limit}` : `limit=${limit}&cursor=${cursor}`;
    const out = await call(app, "GET", `${path}${join}${qs}`, { token });
    expect({ path, status: out.status }).toEqual({ path, status: 200 });
    const page = out.json as Page<T>;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.next_cursor;
    if (cursor === null) return items;
  }
  throw new Error("the pages did not end");
}

/** Query parameters from a filter's defined members. */
export function queryOf(filter: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (value !== undefined) qs.set(name, value);
  return qs.toString();
}

/**
 * Whether `row` holds each value `filter` gives for `members` (an absent one admits any row): the
 * equality part of a list's filter, as an `expected` computes it without the database.
 */
export function matchesEach<K extends string>(
  row: Readonly<Record<K, unknown>>,
  filter: Readonly<Partial<Record<K, unknown>>>,
  members: readonly K[],
): boolean {
  return members.every((m) => filter[m] === undefined || row[m] === filter[m]);
}

interface PagingProperty<D, F, T> {
  app: () => TestApp;
  token: () => string;
  /** Random rows for one run, stored by `store` after the list's tables are emptied. */
  data: fc.Arbitrary<D>;
  store: (data: D) => Promise<void>;
  /** Random filters; `path` turns one into the list's path and query. */
  filter: fc.Arbitrary<F>;
  path: (filter: F) => string;
  /** The keys the list must give, in its order, computed without the database. */
  expected: (data: D, filter: F) => string[];
  /** The key of a served item, as `expected` names it. */
  key: (item: T) => string;
  numRuns?: number;
}

/** The paging property of one list (see the header): checked over random data, filters and limits. */
export async function checkPaging<D, F, T>(p: PagingProperty<D, F, T>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(p.data, p.filter, fc.integer({ min: 1, max: 7 }), async (data, filter, limit) => {
      await p.store(data);
      const walked = await walkPages<T>(p.app(), p.path(filter), p.token(), limit);
      expect(walked.map(p.key)).toEqual(p.expected(data, filter));
    }),
    { numRuns: p.numRuns ?? 25 },
  );
}
