import type { Sql, TransactionSql } from "postgres";
import {
  type EngineDatabase,
  migrateEngine,
  openEngineDatabase,
} from "../../lib/billing/engine/engine-database.ts";
import { CopyQueue, CopyWriter } from "../../lib/billing/engine/store/copy-rows.ts";
import { usage } from "../../lib/billing/engine/store/engine-schema.ts";
import { copyIntoStatement } from "../../lib/foundation/postgres/table-columns.ts";
import { freshDatabase } from "../reporting/fresh-database.ts";

/**
 * What the COPY tests of the engine share: an engine database of their own, migrated, with a pricing
 * model `m` for their runs to name, and usage rows written through the engine's COPY writer.
 */
export async function copyTestDatabase(
  max: number,
): Promise<{ engine: EngineDatabase; dispose(): Promise<void> }> {
  const fresh = await freshDatabase();
  await migrateEngine(fresh.url);
  const engine = openEngineDatabase(fresh.url, { max });
  await engine.sql`insert into pricing_models (name, digest, currency, document) values ('m', 'd', 'EUR', '')`;
  return {
    engine,
    async dispose() {
      await engine.close();
      await fresh.drop();
    },
  };
}

const usageCopy = copyIntoStatement(usage, [
  "runId",
  "cloud",
  "platform",
  "resourceType",
  "resourceId",
  "projectId",
  "from",
  "to",
]);

/** A usage row of volume `resourceId` of project p1 in cloud c1. */
export interface UsageRow {
  runId: string;
  resourceId: string;
  from: string;
  to: string;
}

/** Writes `rows` with the engine's COPY writer (`chunk` rows a chunk) in `tx`, then drains its queue. */
export async function copyUsage(tx: TransactionSql, rows: Iterable<UsageRow>, chunk: number): Promise<void> {
  const queue = new CopyQueue(tx);
  const writer = new CopyWriter(queue, usageCopy, chunk);
  for (const r of rows)
    await writer.add([r.runId, "c1", "platform_a", "volume", r.resourceId, "p1", r.from, r.to]);
  await writer.flush();
  await queue.drain();
}

/** `rows` written in one transaction, in chunks of 2: null when it commits, else the failure's SQLSTATE. */
export function copyUsageOutcome(sql: Sql, rows: Iterable<UsageRow>): Promise<string | null> {
  return sql
    .begin((tx) => copyUsage(tx, rows, 2))
    .then(
      () => null,
      (error: { code?: string }) => error.code ?? "no code",
    );
}
