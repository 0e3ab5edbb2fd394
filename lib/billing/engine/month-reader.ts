import type { Sql } from "postgres";
import type { Period } from "../../foundation/time/period.ts";
import { readCounters } from "../metering/read-counters.ts";
import type { StandingMonth } from "./correct-month.ts";
import type { MonthInput } from "./price-month.ts";
import type { CounterSetup } from "./rate-month.ts";
import { withMonthSnapshot } from "./reporting-source.ts";
import { type LineChain, readStandingLines } from "./store/standing-lines.ts";
import { storedStatements } from "./store/stored-statements.ts";

/**
 * The reader of a run or a correction: one repeatable-read snapshot of the reporting database (the read
 * instant, the registry, the month's events streamed in resource order) and, per batch of metered
 * resources, their counters from the metrics store. `work` runs while the snapshot is open: the month
 * is read as it is computed, so memory holds a batch, not the month.
 */
export function readMonth<T>(
  source: { reporting: Sql; counters: CounterSetup | null },
  period: Period,
  work: (input: MonthInput) => Promise<T>,
): Promise<T> {
  const setup = source.counters;
  return withMonthSnapshot(source.reporting, period, (snapshot) =>
    work({
      ...snapshot,
      counters: setup === null ? null : (batch) => readCounters(batch, setup.sources, setup.store, period),
    }),
  );
}

/**
 * The reader of what stands (decision 423), before a correction diffs anything: the committed rows of
 * the finalized chain, its statements and every line that stands.
 */
export async function readStanding(engine: Sql, chain: LineChain): Promise<StandingMonth> {
  return {
    statements: {
      regular: await storedStatements(engine, chain.regular),
      corrections: await Promise.all(chain.corrections.map((id) => storedStatements(engine, id))),
    },
    lines: await readStandingLines(engine, chain),
  };
}
