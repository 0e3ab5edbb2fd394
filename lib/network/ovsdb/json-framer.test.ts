import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FramingError, initialFramerState, parseFrame, pushChunk } from "./json-framer.ts";

const encoder = new TextEncoder();

function frameAll(chunks: Uint8Array[]): unknown[] {
  const state = initialFramerState();
  const out: unknown[] = [];
  for (const chunk of chunks) for (const frame of pushChunk(state, chunk)) out.push(parseFrame(frame));
  return out;
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let last = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(last, p));
    last = p;
  }
  chunks.push(bytes.subarray(last));
  return chunks;
}

describe("json framer", () => {
  test("splits concatenated objects with braces and quotes inside strings", () => {
    const text = '{"a":"}{\\"[","b":[1,{"c":"\\\\"}]}  \n{"id":2}{"x":"é😀"}';
    expect(frameAll([encoder.encode(text)])).toEqual([
      { a: '}{"[', b: [1, { c: "\\" }] },
      { id: 2 },
      { x: "é😀" },
    ]);
  });

  test("a multi-byte character split across chunks survives", () => {
    const bytes = encoder.encode('{"x":"😀"}');
    const chunks = [bytes.subarray(0, 7), bytes.subarray(7, 8), bytes.subarray(8)];
    expect(frameAll(chunks)).toEqual([{ x: "😀" }]);
  });

  test("holds on to copies, not views of a reused buffer", () => {
    const state = initialFramerState();
    const buffer = encoder.encode('{"a":1');
    expect(pushChunk(state, buffer)).toEqual([]);
    buffer.fill(0x20);
    const frames = pushChunk(state, encoder.encode("}"));
    expect(frames.map(parseFrame)).toEqual([{ a: 1 }]);
  });

  test("garbage between texts is a framing error", () => {
    expect(() => pushChunk(initialFramerState(), encoder.encode('{"a":1} x'))).toThrow(FramingError);
  });

  test("a text beyond the cap is refused", () => {
    const state = initialFramerState();
    expect(() => pushChunk(state, encoder.encode('{"a":"0123456789'), 8)).toThrow(FramingError);
  });

  test("property: any split of any sequence of JSON values frames to the same values", () => {
    const message = fc.dictionary(fc.string(), fc.jsonValue());
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (msgs, cuts) => {
          const bytes = encoder.encode(msgs.map((m) => JSON.stringify(m, null, cuts.length % 2)).join(""));
          const expected = msgs.map((m) => JSON.parse(JSON.stringify(m)));
          expect(frameAll(splitAt(bytes, cuts))).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
    // Generous: the runs take a few seconds on a loaded machine, and the test times nothing.
  }, 60_000);

  test("property: runs of backslashes and quotes inside strings, split anywhere", () => {
    // The framer skips string contents with indexOf: an escaped quote must not end a string, also
    // when its backslashes come in an earlier chunk than the quote.
    const tricky = fc
      .array(fc.constantFrom("\\", '"', "a", "{", "}", "\\\\"), { maxLength: 12 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(tricky, tricky, { maxKeys: 3 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (msgs, cuts) => {
          const bytes = encoder.encode(msgs.map((m) => JSON.stringify(m)).join(""));
          expect(frameAll(splitAt(bytes, cuts))).toEqual(msgs.map((m) => JSON.parse(JSON.stringify(m))));
        },
      ),
      { numRuns: 1000 },
    );
  }, 60_000);
});
