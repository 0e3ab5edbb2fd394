/**
 * A record of `RecordSort` (decision 252): bytes with their sort key in front, so a sort compares
 * numbers and writes and reads runs without serializing objects. Layout: the record's length (u32),
 * its order (f64, an integer below 2^53), a tie-breaker (u16 length, then ASCII), then its fields as
 * written: a byte, or a u32 length and the field's bytes. Little-endian throughout.
 */

/** Where the order sits: after the record's length. */
export const orderOffset = 4;
/** Where the tie-breaker's length sits, its text right after it. */
const tieOffset = 12;

/** Builds one record at a time in a buffer of its own; `finish` gives a view valid until the next `start`. */
export class RecordWriter {
  private buffer = Buffer.allocUnsafe(64 << 10);
  private view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
  private at = 0;

  start(order: number, tie: string): this {
    this.at = 0;
    this.room(tieOffset + 2 + tie.length);
    this.view.setFloat64(orderOffset, order, true);
    this.view.setUint16(tieOffset, tie.length, true);
    this.at = tieOffset + 2 + this.buffer.write(tie, tieOffset + 2, "latin1");
    return this;
  }

  byte(value: number): this {
    this.room(1);
    this.buffer[this.at++] = value;
    return this;
  }

  bytes(value: Uint8Array): this {
    this.room(4 + value.byteLength);
    this.view.setUint32(this.at, value.byteLength, true);
    this.buffer.set(value, this.at + 4);
    this.at += 4 + value.byteLength;
    return this;
  }

  /** A text as UTF-8. */
  text(value: string): this {
    // A UTF-16 unit takes at most 3 bytes of UTF-8.
    this.room(4 + value.length * 3);
    const length = this.buffer.write(value, this.at + 4, "utf8");
    this.view.setUint32(this.at, length, true);
    this.at += 4 + length;
    return this;
  }

  finish(): Uint8Array {
    this.view.setUint32(0, this.at, true);
    return this.buffer.subarray(0, this.at);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.byteLength) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.byteLength, this.at + bytes));
    grown.set(this.buffer.subarray(0, this.at));
    this.buffer = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }
}

/** Reads a record's fields in the order they were written; holds the record only while it is used. */
export class RecordReader {
  private at: number;

  constructor(private readonly record: Uint8Array) {
    this.at = tieOffset + 2 + this.u16(tieOffset);
  }

  /** The tie-breaker of the record. */
  tie(): string {
    return String.fromCharCode(...this.record.subarray(tieOffset + 2, tieOffset + 2 + this.u16(tieOffset)));
  }

  byte(): number {
    return this.record[this.at++] as number;
  }

  /** A field's bytes, a view into the record. */
  bytes(): Uint8Array {
    const r = this.record;
    const at = this.at;
    const length =
      ((r[at] as number) | ((r[at + 1] as number) << 8) | ((r[at + 2] as number) << 16)) +
      (r[at + 3] as number) * 2 ** 24;
    this.at = at + 4 + length;
    return r.subarray(at + 4, this.at);
  }

  text(): string {
    return decoder.decode(this.bytes());
  }

  private u16(at: number): number {
    return (this.record[at] as number) | ((this.record[at + 1] as number) << 8);
  }
}

const decoder = new TextDecoder();

/** Orders two records held at `a` in `x` and `b` in `y`: by order, then tie-breaker bytes. */
export function compareRecordsAt(x: DataView, a: number, y: DataView, b: number): number {
  const byOrder = x.getFloat64(a + orderOffset, true) - y.getFloat64(b + orderOffset, true);
  if (byOrder !== 0) return byOrder;
  return compareTies(x, a, y, b);
}

/** The tie-breakers of two records compared byte by byte, a prefix first. */
export function compareTies(x: DataView, a: number, y: DataView, b: number): number {
  const xLength = x.getUint16(a + tieOffset, true);
  const yLength = y.getUint16(b + tieOffset, true);
  const length = Math.min(xLength, yLength);
  for (let i = 0; i < length; i++) {
    const d = x.getUint8(a + tieOffset + 2 + i) - y.getUint8(b + tieOffset + 2 + i);
    if (d !== 0) return d;
  }
  return xLength - yLength;
}
