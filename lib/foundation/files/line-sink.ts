import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Bytes gathered before one write. Bun's FileSink wrote every few KiB whatever its highWaterMark
 * (one write system call per two lines of a month), and took two native calls per line.
 */
const chunkBytes = 1 << 20;

/** A file of lines written in large chunks; a month of a million lines never becomes one string. */
export interface LineSink {
  /** One line: a text, or its UTF-8 bytes (copied before `line` returns). */
  line(line: string | Uint8Array): void;
  /** Text without a line end of its own (a document written piece by piece). */
  text(text: string): void;
  /** Bytes that are already lines (a file of them, copied over). */
  bytes(chunk: Uint8Array): void;
  /** Writes what is gathered and closes the file; a second call does nothing. */
  end(): Promise<void>;
  /** `end` for a caller that is not async: the writes are synchronous anyway. */
  close(): void;
}

function writeAll(fd: number, bytes: Uint8Array, length = bytes.byteLength): void {
  let done = 0;
  while (done < length) done += writeSync(fd, bytes, done, length - done);
}

/** Creates (or truncates) `path` for lines. */
export function lineSink(path: string): LineSink {
  const fd = openSync(path, "w");
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let at = 0;
  let open = true;
  const flush = () => {
    writeAll(fd, buffer, at);
    at = 0;
  };
  const text = (value: string, end: number) => {
    // A UTF-16 unit takes at most 3 bytes of UTF-8, so the text fits when this says it does.
    if (at + value.length * 3 + end > chunkBytes) {
      flush();
      if (value.length * 3 + end > chunkBytes) {
        writeAll(fd, Buffer.from(end === 0 ? value : `${value}\n`));
        return;
      }
    }
    at += buffer.write(value, at);
    if (end === 1) buffer[at++] = 0x0a;
  };
  const bytes = (chunk: Uint8Array, end: number) => {
    if (at + chunk.byteLength + end > chunkBytes) {
      flush();
      if (chunk.byteLength + end > chunkBytes) {
        writeAll(fd, chunk);
        if (end === 1) writeAll(fd, Buffer.from("\n"));
        return;
      }
    }
    buffer.set(chunk, at);
    at += chunk.byteLength;
    if (end === 1) buffer[at++] = 0x0a;
  };
  const close = () => {
    if (!open) return;
    open = false;
    flush();
    closeSync(fd);
  };
  return {
    line: (line) => (typeof line === "string" ? text(line, 1) : bytes(line, 1)),
    text: (value) => text(value, 0),
    bytes: (chunk) => bytes(chunk, 0),
    close,
    async end() {
      close();
    },
  };
}

export async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const sink = lineSink(path);
  for (const line of lines) sink.line(line);
  await sink.end();
}
