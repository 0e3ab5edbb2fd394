import type { Sql, TransactionSql } from "postgres";
import { readMonth } from "./month-reader.ts";
import { type PricedMonth, type PriceOptions, priceMonth } from "./price-month.ts";
import type { CounterSetup } from "./rate-month.ts";
import { writeRun } from "./store/run-writer.ts";

export interface ComputeOptions extends PriceOptions {
  reporting: Sql;
  counters: CounterSetup | null;
}

export interface ComputedMonth extends PricedMonth {
  readAt: string;
}

/**
 * A run's month inside the caller's engine transaction, as read → pure → write: the reader's snapshot
 * (`month-reader.ts`) feeds the pure pipeline (`priceMonth`: meter, rate, costs, statements), whose
 * output the writer (`store/run-writer.ts`) stores as it comes. Nothing here decides whether the run
 * may happen; the caller did.
 */
export function computeMonth(
  tx: TransactionSql,
  runId: string,
  options: ComputeOptions,
): Promise<ComputedMonth> {
  return readMonth(options, options.period, async (month) => {
    const priced = await writeRun(tx, runId, options.model.currency, priceMonth(month, options));
    return { ...priced, readAt: month.readAt };
  });
}
