/**
 * Rows of PostgreSQL's COPY text format written straight into bytes (decision 447): the engine writes a
 * few hundred thousand rows a run, and building each line as a string cost more than metering it (the
 * string's parts, the escape test of every value, then its flattening and encoding into a buffer to
 * send). The same text as `copyFields`, byte for byte.
 */
import { type CopyValue, copyField } from "./copy-in.ts";

/** At most this many bytes per character of a value: 3 of UTF-8, or an escape's 2. */
const bytesPerChar = 3;

/** Bytes of one line at most: each value escaped and encoded, its separator, the newline. */
export function copyLineBound(values: readonly CopyValue[], lead: Uint8Array | null): number {
  let bound = lead === null ? 1 : lead.length + 2;
  for (const v of values) bound += (v === null ? 2 : v.length * bytesPerChar) + 1;
  return bound;
}

/**
 * Writes `values` as one line (the `lead` bytes first when given, which already hold fields in this
 * form, such as a resource's key written once for all its rows) at `at`, newline included, and
 * returns where the line ends. `buffer` must hold `copyLineBound` bytes from `at`.
 */
export function writeCopyLine(
  buffer: Uint8Array,
  at: number,
  values: readonly CopyValue[],
  lead: Uint8Array | null,
): number {
  let pos = at;
  if (lead !== null) {
    buffer.set(lead, pos);
    pos += lead.length;
  }
  for (let i = 0; i < values.length; i++) {
    if (i > 0 || lead !== null) buffer[pos++] = tab;
    pos = writeField(buffer, pos, values[i] ?? null);
  }
  buffer[pos++] = newline;
  return pos;
}

/** `values` as the bytes of fields without the newline, for a `lead` to write in front of rows. */
export function copyLeadBytes(values: readonly CopyValue[]): Uint8Array {
  const buffer = new Uint8Array(copyLineBound(values, null));
  return buffer.slice(0, writeCopyLine(buffer, 0, values, null) - 1);
}

const tab = 9;
const newline = 10;
const encoder = new TextEncoder();

/**
 * One value: plain ASCII copied character by character (most values are: ids, timestamps, numbers,
 * a loop is cheaper than a call into the encoder for a few dozen bytes); anything to escape or beyond
 * ASCII starts the field again through the general path.
 */
function writeField(buffer: Uint8Array, at: number, value: CopyValue): number {
  if (value === null) {
    buffer[at] = 92;
    buffer[at + 1] = 78;
    return at + 2;
  }
  let pos = at;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 128 || c === 92 || c === 9 || c === 10 || c === 13) return writeEscaped(buffer, at, value);
    buffer[pos++] = c;
  }
  return pos;
}

function writeEscaped(buffer: Uint8Array, at: number, value: string): number {
  return at + encoder.encodeInto(copyField(value), buffer.subarray(at)).written;
}
