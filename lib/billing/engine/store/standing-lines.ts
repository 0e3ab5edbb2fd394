import type { Sql, TransactionSql } from "postgres";
import { groupBy } from "../../../foundation/collections/group-by.ts";
import { decimal } from "../../../foundation/money/decimal.ts";
import type { LineFigures } from "../../corrections/line-delta.ts";
import type { ResourceKey } from "../../metering/meter-resource.ts";
import type { LineRow } from "./line-items.ts";

/** The runs whose rated lines stand: a regular run and the corrections applied to it, in order. */
export interface LineChain {
  regular: string;
  corrections: readonly string[];
}

/**
 * The rated lines that stand after a chain of corrections (decision 424), as one statement over the
 * stored rows: a regular run's line, unless a correction of the chain moved its (resource, project,
 * dimension), in which case the last such correction's new figures (summed over its notes, as a line
 * whose attribution moved is split over two) replace it, and a line left without usage is gone.
 * `filter` narrows both sides to some resources; it is a condition on the alias `x`, with parameters
 * from `$3` on. With no corrections this is the regular run's lines.
 */
function standingLinesSql(filter: string, order = ""): string {
  const on = (alias: string) => filter.replaceAll("x.", `${alias}.`);
  return `with moved as (
    select distinct on (cloud, resource_type, resource_id, project_id, dimension)
      cloud, platform, resource_type, resource_id, project_id, dimension, unit_price, quantity, amount
    from (
      select d.run_id, d.cloud, d.platform, d.resource_type, d.resource_id, d.project_id, d.dimension,
        max(d.unit_price) as unit_price, sum(d.new_quantity) as quantity, sum(d.new_amount) as amount
      from line_deltas d where d.run_id = any($2::uuid[]) and ${on("d")}
      group by d.run_id, d.cloud, d.platform, d.resource_type, d.resource_id, d.project_id, d.dimension
    ) m
    order by cloud, resource_type, resource_id, project_id, dimension, array_position($2::uuid[], run_id) desc
  )
  select r.cloud, r.platform, r.resource_type, r.resource_id, r.project_id, r.dimension,
    r.quantity::text as quantity, r.unit_price::text as unit_price, r.amount::text as amount
  from rated_lines r
  where r.run_id = $1 and ${on("r")} and not exists (select 1 from moved m where m.cloud = r.cloud
    and m.resource_type = r.resource_type and m.resource_id = r.resource_id and m.project_id = r.project_id
    and m.dimension = r.dimension)
  union all
  select cloud, platform, resource_type, resource_id, project_id, dimension,
    quantity::text, unit_price::text, amount::text
  from moved where not (quantity = 0 and amount = 0)
  ${order}`;
}

export const resourceKeyOf = (r: ResourceKey) =>
  `${r.cloud}\u0000${r.platform}\u0000${r.resource_type}\u0000${r.resource_id}`;

function grouped(rows: readonly LineRow[]): Map<string, LineFigures[]> {
  const figures = (r: LineRow): LineFigures => ({
    project_id: r.project_id,
    dimension: r.dimension,
    quantity: decimal(r.quantity),
    unit_price: decimal(r.unit_price),
    amount: decimal(r.amount),
  });
  return new Map([...groupBy(rows, resourceKeyOf)].map(([key, group]) => [key, group.map(figures)]));
}

/** The standing lines of some resources, by resource (`resourceKeyOf`). */
export async function standingLinesOf(
  sql: Sql,
  chain: LineChain,
  resources: readonly ResourceKey[],
): Promise<Map<string, LineFigures[]>> {
  if (resources.length === 0) return new Map();
  const rows = await sql.unsafe<LineRow[]>(
    standingLinesSql(
      "(x.cloud, x.resource_type, x.resource_id) in (select * from unnest($3::text[], $4::text[], $5::text[]))",
    ),
    [
      chain.regular,
      [...chain.corrections],
      resources.map((r) => r.cloud),
      resources.map((r) => r.resource_type),
      resources.map((r) => r.resource_id),
    ],
  );
  return grouped(rows);
}

/**
 * The standing lines of the resources a table of seen resource keys does not hold, with their keys:
 * what a correction must credit for resources its own read of the month no longer meters.
 */
export async function standingLinesNotIn(
  tx: TransactionSql,
  chain: LineChain,
  seenTable: string,
): Promise<{ resource: ResourceKey; lines: LineFigures[] }[]> {
  const rows = await tx.unsafe<LineRow[]>(
    standingLinesSql(
      `not exists (select 1 from ${seenTable} s where s.cloud = x.cloud and s.platform = x.platform
        and s.resource_type = x.resource_type and s.resource_id = x.resource_id)`,
    ),
    [chain.regular, [...chain.corrections]],
  );
  const resources = new Map<string, ResourceKey>();
  for (const r of rows) {
    resources.set(resourceKeyOf(r), {
      cloud: r.cloud,
      platform: r.platform,
      resource_type: r.resource_type,
      resource_id: r.resource_id,
    });
  }
  const lines = grouped(rows);
  return [...resources].map(([key, resource]) => ({ resource, lines: lines.get(key) ?? [] }));
}

/** Every standing line in `rated.csv` order, through a cursor. */
export function standingLinesCursor(sql: Sql, chain: LineChain, rows: number): AsyncIterable<LineRow[]> {
  return sql
    .unsafe<LineRow[]>(
      standingLinesSql("true", "order by resource_type, resource_id, cloud, project_id, dimension"),
      [chain.regular, [...chain.corrections]],
    )
    .cursor(rows);
}
