import type { ratedLines } from "./engine-schema.ts";

/** `<cloud>/<project_id>` with the slash (and anything else unsafe in a file name) percent-encoded. */
export function exportKey(cloud: string, projectId: string): string {
  return `${encodeURIComponent(cloud)}%2F${encodeURIComponent(projectId)}`;
}

/** A rated line as exported: the columns of `rated.csv` but the currency, which is the run's. */
export interface LineRow {
  cloud: string;
  platform: string;
  resource_type: string;
  resource_id: string;
  project_id: string;
  dimension: string;
  quantity: string;
  unit_price: string;
  amount: string;
}

/** One resource's lines on a statement or a credit note: a value per dimension and their total. */
export interface LineItem<V> {
  resource_type: string;
  resource_id: string;
  platform: string;
  dimensions: Record<string, V>;
  total: string;
}

const cents = (n: bigint) => {
  const sign = n < 0n ? "-" : "";
  const a = n < 0n ? -n : n;
  return `${sign}${a / 100n}.${String(a % 100n).padStart(2, "0")}`;
};
const toCents = (s: string) => BigInt(s.replace(".", ""));

type ItemRow = Pick<typeof ratedLines.$inferSelect, "resourceType" | "resourceId" | "platform" | "dimension">;

/**
 * Lines of one project (ordered by resource) as line items, one per resource: `value` is what a
 * dimension shows, `amount` what it adds to the item's total (a rated amount, or a delta).
 */
export function lineItems<R extends ItemRow, V>(
  rows: readonly R[],
  value: (row: R) => V,
  amount: (row: R) => string,
): LineItem<V>[] {
  const items: LineItem<V>[] = [];
  let current: (LineItem<V> & { cents: bigint }) | null = null;
  const finish = ({ cents: total, ...rest }: LineItem<V> & { cents: bigint }) =>
    items.push({ ...rest, total: cents(total) });
  for (const r of rows) {
    if (
      current === null ||
      current.resource_id !== r.resourceId ||
      current.resource_type !== r.resourceType
    ) {
      if (current !== null) finish(current);
      current = {
        resource_type: r.resourceType,
        resource_id: r.resourceId,
        platform: r.platform,
        dimensions: {},
        total: "",
        cents: 0n,
      };
    }
    current.dimensions[r.dimension] = value(r);
    current.cents += toCents(amount(r));
  }
  if (current !== null) finish(current);
  return items;
}
