import { and, asc, eq, sql as sqlText } from "drizzle-orm";
import type { Sql, TransactionSql } from "postgres";
import { decimal } from "../../../foundation/money/decimal.ts";
import type { LineDelta } from "../../corrections/line-delta.ts";
import { RunWarnings } from "../../metering/run-warnings.ts";
import type { ProjectCost } from "../../statements/build-statements.ts";
import { projectKey } from "../../statements/registry.ts";
import type { SummedMonth } from "../price-month.ts";
import type { MonthCounts, MonthTally } from "../rate-month.ts";
import type { Shard } from "../shards/shard.ts";
import { engineDb } from "./engine-db.ts";
import {
  lineDeltas,
  projectBuckets,
  projectUsage,
  runShards,
  runs,
  type StoredStats,
} from "./engine-schema.ts";
import { insertAll } from "./statement-rows.ts";

/**
 * What a worker of a run spread over processes hands to the statement step (decision 470), in the
 * transaction that holds its usage records and rated lines: its per-project bucket totals, its
 * per-project usage of the dimensions a plan tiers (decision 472) and, last,
 * its shard row with what it counted. The run must still be `running`: the row lock taken here waits
 * for a coordinator marking it failed, or makes that coordinator wait for this commit, so a failed run
 * never keeps rows of a shard that committed behind its back.
 */
export async function writeShard(
  tx: TransactionSql,
  runId: string,
  shard: Shard,
  summed: SummedMonth,
): Promise<void> {
  const db = engineDb(tx);
  const [running] = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.status, "running")))
    .for("share");
  if (running === undefined) throw new Error(`run ${runId} is no longer running: the shard is not kept`);
  await insertAll(
    db,
    projectBuckets,
    summed.costs.flatMap((cost) =>
      cost.buckets.map((b) => ({
        runId,
        shard: shard.index,
        cloud: cost.cloud,
        projectId: cost.project_id,
        platform: b.platform,
        resourceType: b.resource_type,
        amount: b.amount.toFixed(),
      })),
    ),
  );
  await insertAll(
    db,
    projectUsage,
    summed.costs.flatMap((cost) =>
      (cost.usage ?? []).map((u) => ({
        runId,
        shard: shard.index,
        cloud: cost.cloud,
        projectId: cost.project_id,
        platform: u.platform,
        resourceType: u.resource_type,
        dimension: u.dimension,
        numerator: u.numerator.toFixed(),
        priced: u.priced.toFixed(),
      })),
    ),
  );
  const stats: StoredStats = { ...summed.tally.warnings.stats(), counts: summed.tally.counts };
  await db.insert(runShards).values({ runId, shard: shard.index, shards: shard.count, stats });
}

/**
 * The month as every shard summed it: the bucket totals added up per project and bucket, and the
 * shards' counts and warnings added up; null unless all `count` shards are in.
 */
export async function readShards(
  sql: Sql | TransactionSql,
  runId: string,
  count: number,
): Promise<SummedMonth | null> {
  const db = engineDb(sql);
  const shards = await db
    .select({ stats: runShards.stats })
    .from(runShards)
    .where(eq(runShards.runId, runId));
  if (shards.length !== count) return null;
  const warnings = new RunWarnings();
  const counts: MonthCounts = { resources: 0, candidates: 0, usage_records: 0, rated_records: 0 };
  for (const { stats } of shards) {
    warnings.addStats({ codes: stats.codes ?? {} });
    for (const key of Object.keys(counts) as (keyof MonthCounts)[]) counts[key] += stats.counts?.[key] ?? 0;
  }
  const rows = await db
    .select({
      cloud: projectBuckets.cloud,
      projectId: projectBuckets.projectId,
      platform: projectBuckets.platform,
      resourceType: projectBuckets.resourceType,
      amount: sqlText<string>`sum(${projectBuckets.amount})::text`,
    })
    .from(projectBuckets)
    .where(eq(projectBuckets.runId, runId))
    .groupBy(...bucketOf(projectBuckets))
    .orderBy(...bucketOf(projectBuckets).map((c) => asc(c)));
  const costs: ProjectCost[] = [];
  const byProject = new Map<string, ProjectCost>();
  for (const r of rows) {
    let cost = costs.at(-1);
    if (cost?.cloud !== r.cloud || cost.project_id !== r.projectId) {
      cost = { cloud: r.cloud, project_id: r.projectId, buckets: [], usage: [] };
      costs.push(cost);
      byProject.set(projectKey(r.cloud, r.projectId), cost);
    }
    cost.buckets.push({ platform: r.platform, resource_type: r.resourceType, amount: decimal(r.amount) });
  }
  // A tiered dimension's usage only comes with a line of it, which made its project's bucket.
  for (const u of await shardsUsage(sql, runId)) {
    const cost = byProject.get(projectKey(u.cloud, u.projectId));
    if (cost === undefined)
      throw new Error(`run ${runId}: usage of ${u.cloud}/${u.projectId} without its costs`);
    cost.usage?.push({
      platform: u.platform,
      resource_type: u.resourceType,
      dimension: u.dimension,
      numerator: decimal(u.numerator),
      priced: decimal(u.priced),
    });
  }
  const tally: MonthTally = { warnings, counts };
  return { costs, tally };
}

/** A per-project shard table's bucket columns, in the order the statement step sums and sorts them. */
const bucketOf = (t: typeof projectBuckets | typeof projectUsage) =>
  [t.cloud, t.projectId, t.platform, t.resourceType] as const;

/** The usage of the tiered dimensions every shard summed, added up per project and dimension (decision 472). */
function shardsUsage(sql: Sql | TransactionSql, runId: string) {
  return engineDb(sql)
    .select({
      cloud: projectUsage.cloud,
      projectId: projectUsage.projectId,
      platform: projectUsage.platform,
      resourceType: projectUsage.resourceType,
      dimension: projectUsage.dimension,
      numerator: sqlText<string>`sum(${projectUsage.numerator})::text`,
      priced: sqlText<string>`sum(${projectUsage.priced})::text`,
    })
    .from(projectUsage)
    .where(eq(projectUsage.runId, runId))
    .groupBy(...bucketOf(projectUsage), projectUsage.dimension)
    .orderBy(...[...bucketOf(projectUsage), projectUsage.dimension].map((c) => asc(c)));
}

/**
 * Every line delta the workers of a correction stored (decisions 470, 471): what its notes list, in
 * the order of the table's key (a note sorts its lines itself; the order only makes reruns alike).
 */
export async function readLineDeltas(sql: Sql | TransactionSql, runId: string): Promise<LineDelta[]> {
  const rows = await engineDb(sql)
    .select()
    .from(lineDeltas)
    .where(eq(lineDeltas.runId, runId))
    .orderBy(
      asc(lineDeltas.cloud),
      asc(lineDeltas.resourceType),
      asc(lineDeltas.resourceId),
      asc(lineDeltas.projectId),
      asc(lineDeltas.dimension),
      asc(lineDeltas.noteCloud),
      asc(lineDeltas.noteProjectId),
    );
  return rows.map((r) => ({
    note_cloud: r.noteCloud,
    note_project_id: r.noteProjectId,
    cloud: r.cloud,
    platform: r.platform,
    resource_type: r.resourceType,
    resource_id: r.resourceId,
    project_id: r.projectId,
    dimension: r.dimension,
    unit_price: decimal(r.unitPrice),
    old_quantity: decimal(r.oldQuantity),
    new_quantity: decimal(r.newQuantity),
    old_amount: decimal(r.oldAmount),
    new_amount: decimal(r.newAmount),
    delta: decimal(r.delta),
  }));
}
