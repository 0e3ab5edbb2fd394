import { RecordReader, type RecordWriter } from "../../foundation/collections/byte-record.ts";
import type { SortCodec } from "../../foundation/collections/external-sort.ts";
import type { MappingTarget } from "../oslo/map-notification.ts";
import { type BusEntry, entryDelivery, type RefusedTwin, type StreamEntry } from "./month-stream.ts";

const billableFlag = 1;
const eventFlag = 2;
const inputFlag = 4;
/** The record's line is nova's two forms of one transition, one line each. */
const twoLinesFlag = 8;

/**
 * An entry of the month as the file mode sorts it (decision 252): rendered and mapped when its resource
 * is drawn, so the sort moves the bytes of its line and of its event and never an object. Its order is
 * `compareEntries`: the instant in microseconds (below 2^53 for any instant of this era), then the
 * resource key. The entry itself, encoded by `inputs`, rides along only when a refused twin may be
 * made of it (refused-shapes on, a billable entry): a twin is drawn in bus order, after the sort.
 */
export function monthRecord(
  writer: RecordWriter,
  entry: StreamEntry,
  options: { target: MappingTarget; inputs: SortCodec<StreamEntry> | null },
): Uint8Array {
  const { step } = entry.input;
  const { line, lines, outcome } = entryDelivery(entry, options.target);
  const withInput = options.inputs !== null && entry.billable;
  const flags =
    (entry.billable ? billableFlag : 0) |
    (outcome.outcome === "consumed" ? eventFlag : 0) |
    (withInput ? inputFlag : 0) |
    (lines === 2 ? twoLinesFlag : 0);
  writer.start(step.at * 1000 + step.micros, entry.key).byte(flags);
  if (typeof line === "string") writer.text(line);
  else writer.bytes(line);
  if (outcome.outcome === "consumed") writer.text(outcome.event_json);
  if (withInput) writer.text((options.inputs as SortCodec<StreamEntry>).encode(entry));
  return writer.finish();
}

/** What a month record holds, read back. */
export interface MonthRecordFields {
  /** The entry's lines, joined by a newline when there are two. */
  line: Uint8Array;
  lines: number;
  /** The event's JSON as UTF-8, null when the collector would not consume the line. */
  event: Uint8Array | null;
  /** The entry, encoded, when the record carries it. */
  input: string | null;
}

/**
 * A month record on its way through the fault pipeline, or a refused twin of one. `record` may be a
 * view into a sort's buffer, valid until the next record: `kept` copies it for the pipeline to hold.
 */
export class MonthRecordEntry implements BusEntry {
  readonly billable: boolean;
  private keyText: string | null = null;

  constructor(
    readonly record: Uint8Array,
    readonly twin: RefusedTwin | null = null,
  ) {
    this.billable = twin === null && (new RecordReader(record).byte() & billableFlag) !== 0;
  }

  get key(): string {
    this.keyText ??= new RecordReader(this.record).tie();
    return this.keyText;
  }

  kept(): MonthRecordEntry {
    // A copy: the record may be a Buffer, whose `slice` is a view.
    return new MonthRecordEntry(new Uint8Array(this.record), this.twin);
  }

  fields(): MonthRecordFields {
    const reader = new RecordReader(this.record);
    const flags = reader.byte();
    const line = reader.bytes();
    const event = (flags & eventFlag) !== 0 ? reader.bytes() : null;
    const input = (flags & inputFlag) !== 0 ? reader.text() : null;
    return { line, lines: (flags & twoLinesFlag) !== 0 ? 2 : 1, event, input };
  }
}
