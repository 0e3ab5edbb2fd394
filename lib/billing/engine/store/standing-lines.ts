import type { Sql } from "postgres";
import { type CopyField, copyTextRows } from "../../../foundation/postgres/copy-text-rows.ts";
import { StandingLines } from "../../corrections/standing-lines.ts";
import { type Shard, shardCondition } from "../shards/shard.ts";
import type { LineRow } from "./line-items.ts";

/** The runs whose rated lines stand: a regular run and the corrections applied to it, in order. */
export interface LineChain {
  regular: string;
  corrections: readonly string[];
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A run id as an SQL literal: a COPY takes no parameters, so the chain is written in. */
function uuidLiteral(id: string): string {
  if (!uuidPattern.test(id)) throw new RangeError(`not a run id: ${JSON.stringify(id)}`);
  return `'${id}'::uuid`;
}

/**
 * The rated lines that stand after a chain of corrections (decision 424), as one statement over the
 * stored rows: a regular run's line, unless a correction of the chain moved its (resource, project,
 * dimension), in which case the last such correction's new figures (summed over its notes, as a line
 * whose attribution moved is split over two) replace it, and a line left without usage is gone. The
 * columns are `LineRow`'s, in its order. With no corrections this is the regular run's lines.
 */
function standingLinesSql(chain: LineChain, order = "", shard: Shard | null = null): string {
  const corrections = `array[${chain.corrections.map(uuidLiteral).join(", ")}]::uuid[]`;
  const ofShard = (alias: string) => (shard === null ? "" : `and ${shardCondition(shard, alias)}`);
  return `with moved as (
    select distinct on (cloud, resource_type, resource_id, project_id, dimension)
      cloud, platform, resource_type, resource_id, project_id, dimension, unit_price, quantity, amount
    from (
      select d.run_id, d.cloud, d.platform, d.resource_type, d.resource_id, d.project_id, d.dimension,
        max(d.unit_price) as unit_price, sum(d.new_quantity) as quantity, sum(d.new_amount) as amount
      from line_deltas d where d.run_id = any(${corrections}) ${ofShard("d")}
      group by d.run_id, d.cloud, d.platform, d.resource_type, d.resource_id, d.project_id, d.dimension
    ) m
    order by cloud, resource_type, resource_id, project_id, dimension, array_position(${corrections}, run_id) desc
  )
  select r.cloud, r.platform, r.resource_type, r.resource_id, r.project_id, r.dimension,
    r.quantity::text as quantity, r.unit_price::text as unit_price, r.amount::text as amount
  from rated_lines r
  where r.run_id = ${uuidLiteral(chain.regular)} ${ofShard("r")} and not exists (select 1 from moved m where m.cloud = r.cloud
    and m.resource_type = r.resource_type and m.resource_id = r.resource_id and m.project_id = r.project_id
    and m.dimension = r.dimension)
  union all
  select cloud, platform, resource_type, resource_id, project_id, dimension,
    quantity::text, unit_price::text, amount::text
  from moved where not (quantity = 0 and amount = 0)
  ${order}`;
}

/** A row of `standingLinesSql`: nine fields, none null. */
type StandingRow = readonly [string, string, string, string, string, string, string, string, string];

/**
 * Every line that stands, read in one COPY before a correction diffs anything (decision 432's reader:
 * repeated fields come back as one string), held by resource; a worker's, of its shard (decision 470).
 */
export async function readStandingLines(
  sql: Sql,
  chain: LineChain,
  shard: Shard | null = null,
): Promise<StandingLines> {
  const standing = new StandingLines();
  const stream = await sql.unsafe(`copy (${standingLinesSql(chain, "", shard)}) to stdout`).readable();
  // Each row goes straight into the set: no batch of rows is kept.
  const row = (f: readonly CopyField[]) => {
    const [cloud, platform, resource_type, resource_id, project_id, dimension, quantity, unit_price, amount] =
      f as StandingRow;
    standing.add(
      { cloud, platform, resource_type, resource_id },
      { project_id, dimension, quantity, unit_price, amount },
    );
  };
  for await (const _ of copyTextRows(stream, { columns: 9, row, batch: 5_000 })) {
    // the rows are already held
  }
  return standing;
}

/** Every standing line in `rated.csv` order, through a cursor. */
export function standingLinesCursor(sql: Sql, chain: LineChain, rows: number): AsyncIterable<LineRow[]> {
  return sql
    .unsafe<LineRow[]>(
      standingLinesSql(chain, "order by resource_type, resource_id, cloud, project_id, dimension"),
    )
    .cursor(rows);
}
