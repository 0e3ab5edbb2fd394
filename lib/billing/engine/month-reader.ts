import type { Sql } from "postgres";
import type { Period } from "../../foundation/time/period.ts";
import { readCounters } from "../metering/read-counters.ts";
import type { StandingMonth } from "./correct-month.ts";
import type { MonthInput } from "./price-month.ts";
import type { CounterSetup } from "./rate-month.ts";
import { type MonthSnapshot, withMonthSnapshot, withShardSnapshot } from "./reporting-source.ts";
import type { Shard } from "./shards/shard.ts";
import { type LineChain, readStandingLines } from "./store/standing-lines.ts";
import { storedStatements } from "./store/stored-statements.ts";

/**
 * The reader of a run or a correction: one repeatable-read snapshot of the reporting database (the read
 * instant, the registry, the month's events streamed in resource order) and, per batch of metered
 * resources, their counters from the metrics store. `work` runs while the snapshot is open: the month
 * is read as it is computed, so memory holds a batch, not the month. A worker of a run spread over
 * processes reads its shard in the coordinator's snapshot (`shared`).
 */
export function readMonth<T>(
  source: { reporting: Sql; counters: CounterSetup | null },
  period: Period,
  work: (input: MonthInput) => Promise<T>,
  shared: ShardRead | null = null,
): Promise<T> {
  const setup = source.counters;
  const withCounters = (snapshot: MonthSnapshot) =>
    work({
      ...snapshot,
      counters: setup === null ? null : (batch) => readCounters(batch, setup.sources, setup.store, period),
    });
  return shared === null
    ? withMonthSnapshot(source.reporting, period, withCounters)
    : withShardSnapshot(source.reporting, period, shared, withCounters);
}

/** A worker's read (decision 470): its shard of the month, in the coordinator's exported snapshot. */
export interface ShardRead {
  /** The exported snapshot's id. */
  id: string;
  readAt: string;
  shard: Shard;
}

/**
 * The reader of what stands (decision 423), before a correction diffs anything: the committed rows of
 * the finalized chain, its statements and every line that stands (a worker's: of its shard).
 */
export async function readStanding(
  engine: Sql,
  chain: LineChain,
  shard: Shard | null = null,
): Promise<StandingMonth> {
  return {
    statements: await readStandingStatements(engine, chain),
    lines: await readStandingLines(engine, chain, shard),
  };
}

/** The statements of each run of the finalized chain: what a correction's notes are the difference to. */
export async function readStandingStatements(
  engine: Sql,
  chain: LineChain,
): Promise<StandingMonth["statements"]> {
  return {
    regular: await storedStatements(engine, chain.regular),
    corrections: await Promise.all(chain.corrections.map((id) => storedStatements(engine, id))),
  };
}
