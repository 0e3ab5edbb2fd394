import type { TransactionSql } from "postgres";
import { consume } from "../../../foundation/async/consume.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { type Decimal, formatMoney, formatQuantity, formatRate } from "../../../foundation/money/decimal.ts";
import { copyLeadBytes } from "../../../foundation/postgres/copy-text-bytes.ts";
import type { LineDelta } from "../../corrections/line-delta.ts";
import type { CorrectedMonth } from "../correct-month.ts";
import type { PricedMonth } from "../price-month.ts";
import type { RatedResource } from "../rate-month.ts";
import { CopyQueue, CopyWriter } from "./copy-rows.ts";
import { lineDeltasCopy, ratedLinesCopy, usageCopy } from "./run-rows.ts";
import { writeCreditNotes, writeSettlements, writeStatements } from "./statement-rows.ts";

/**
 * The writer of a run, inside its transaction: the usage records and rated lines (`writeRatedRows`),
 * then the statements and the partner settlement the pipeline returns.
 */
export async function writeRun(
  tx: TransactionSql,
  runId: string,
  currency: string,
  month: AsyncGenerator<RatedResource[], PricedMonth>,
): Promise<PricedMonth> {
  const priced = await writeRatedRows(tx, runId, month);
  await writeStated(tx, runId, currency, priced);
  return priced;
}

/** A month's statements and partner settlement, once its rows are in. */
export async function writeStated(
  tx: TransactionSql,
  runId: string,
  currency: string,
  priced: PricedMonth,
): Promise<void> {
  await writeStatements(tx, runId, currency, priced.statements);
  await writeSettlements(tx, runId, currency, priced.settlements);
}

/**
 * Each batch the pipeline yields goes out as usage records and rated lines by COPY as bytes
 * (decisions 433, 447) while the next is computed; what the pipeline returns once they are all in.
 * A run's process and each worker of a run spread over processes (decision 470) write them so.
 */
export async function writeRatedRows<R>(
  tx: TransactionSql,
  runId: string,
  month: AsyncGenerator<RatedResource[], R>,
): Promise<R> {
  const queue = new CopyQueue(tx);
  const usage = new CopyWriter(queue, usageCopy);
  const rated = new CopyWriter(queue, ratedLinesCopy);
  // A month has a few prices: each is written out once.
  const rates = new Map<Decimal, string>();
  const priced = await consume(month, async (batch) => {
    for (const { resource, rating } of batch) {
      const lead = copyLeadBytes([
        runId,
        resource.cloud,
        resource.platform,
        resource.resource_type,
        resource.resource_id,
      ]);
      // Intervals of one resource often share their size object: it is written out once.
      let size: JsonObject | null = null;
      let sizeText: string | null = null;
      for (const i of resource.intervals) {
        if (i.size !== size) {
          size = i.size;
          sizeText = size === null ? null : JSON.stringify(size);
        }
        await usage.add(
          [
            i.project_id,
            i.from,
            i.to,
            i.state,
            sizeText,
            i.counters === undefined ? null : JSON.stringify(i.counters),
          ],
          lead,
        );
      }
      for (const line of rating.lines) {
        let rate = rates.get(line.unit_price);
        if (rate === undefined) {
          rate = formatRate(line.unit_price);
          rates.set(line.unit_price, rate);
        }
        await rated.add(
          [line.project_id, line.dimension, formatQuantity(line.quantity), rate, formatMoney(line.amount)],
          lead,
        );
      }
    }
  });
  await usage.flush();
  await rated.flush();
  await queue.drain();
  return priced;
}

/**
 * The writer of a correction, inside its transaction: the line deltas by COPY as the pipeline yields
 * them, then the credit notes, their adjustment deltas, the statements they restate and the
 * settlement's deltas. A correction that moved nothing writes nothing.
 */
export async function writeCorrection(
  tx: TransactionSql,
  runId: string,
  currency: string,
  month: AsyncGenerator<LineDelta[], CorrectedMonth>,
): Promise<CorrectedMonth> {
  const corrected = await writeLineDeltas(tx, runId, month);
  await writeNotes(tx, runId, currency, corrected);
  return corrected;
}

/** A correction's notes and settlement deltas, once its line deltas are in; nothing when none moved. */
export async function writeNotes(
  tx: TransactionSql,
  runId: string,
  currency: string,
  corrected: CorrectedMonth,
): Promise<void> {
  if (corrected.notes.length > 0) {
    await writeCreditNotes(tx, runId, currency, corrected.notes);
    await writeSettlements(tx, runId, currency, corrected.settlements);
  }
}

/**
 * The line deltas by COPY as the pipeline yields them; what it returns once they are all in (a
 * correction's process, and each worker of one spread over processes, decision 470).
 */
export async function writeLineDeltas<R>(
  tx: TransactionSql,
  runId: string,
  month: AsyncGenerator<LineDelta[], R>,
): Promise<R> {
  const queue = new CopyQueue(tx);
  const rows = new CopyWriter(queue, lineDeltasCopy);
  const corrected = await consume(month, async (deltas) => {
    for (const d of deltas) {
      await rows.add([
        runId,
        d.note_cloud,
        d.note_project_id,
        d.cloud,
        d.platform,
        d.resource_type,
        d.resource_id,
        d.project_id,
        d.dimension,
        formatRate(d.unit_price),
        formatQuantity(d.old_quantity),
        formatQuantity(d.new_quantity),
        formatMoney(d.old_amount),
        formatMoney(d.new_amount),
        formatMoney(d.delta),
      ]);
    }
  });
  await rows.flush();
  await queue.drain();
  return corrected;
}
