import type { Sql, TransactionSql } from "postgres";
import { type CorrectedMonth, correctMonth } from "./correct-month.ts";
import { readMonth, readStanding } from "./month-reader.ts";
import type { PriceOptions } from "./price-month.ts";
import type { CounterSetup } from "./rate-month.ts";
import { writeCorrection } from "./store/run-writer.ts";
import type { LineChain } from "./store/standing-lines.ts";

export interface CorrectionOptions extends PriceOptions {
  /** The engine database outside the correction's transaction: the corrected runs' rows, committed. */
  engine: Sql;
  reporting: Sql;
  counters: CounterSetup | null;
  /** The regular run and its finalized corrections, in order: the numbers that stand. */
  chain: LineChain;
}

export interface ComputedCorrection extends CorrectedMonth {
  readAt: string;
}

/**
 * A correction inside the caller's engine transaction, as read → pure → write (docs/engine.md#correction-rules): the reader gives what stands (the chain's statements and lines, read first) and the month's
 * snapshot; the pure pipeline (`correctMonth`: meter, rate, costs, the diff, statements, notes) meters
 * the month again and diffs it; the writer stores the line deltas as they come, then the notes. When
 * nothing moved nothing is written, and the caller stores no run.
 */
export async function computeCorrection(
  tx: TransactionSql,
  runId: string,
  options: CorrectionOptions,
): Promise<ComputedCorrection> {
  const standing = await readStanding(options.engine, options.chain);
  return readMonth(options, options.period, async (month) => {
    const corrected = await writeCorrection(
      tx,
      runId,
      options.model.currency,
      correctMonth({ ...month, standing }, options),
    );
    return { ...corrected, readAt: month.readAt };
  });
}
