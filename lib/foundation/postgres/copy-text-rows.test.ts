import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import fc from "fast-check";
import { copyFields } from "./copy-in.ts";
import { type CopyField, copyTextField, copyTextRows } from "./copy-text-rows.ts";

const asRow = (fields: readonly CopyField[]) => [...fields];

async function readAll(chunks: readonly Uint8Array[], columns: number, batch = 2): Promise<CopyField[][][]> {
  const batches: CopyField[][][] = [];
  for await (const rows of copyTextRows(Readable.from(chunks), { columns, row: asRow, batch })) {
    batches.push(rows);
  }
  return batches;
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe("copyTextField", () => {
  test("reads null, plain text and PostgreSQL's escapes", () => {
    expect([
      copyTextField("\\N"),
      copyTextField("plain"),
      copyTextField("a\\tb\\nc\\rd\\\\e\\bf\\fg\\vh"),
      copyTextField("\\\\N"),
      copyTextField(""),
    ]).toEqual([null, "plain", "a\tb\nc\rd\\e\bf\fg\vh", "\\N", ""]);
  });

  test("reads back whatever the engine's COPY writer wrote", () => {
    // The characters COPY treats specially, beside plain ones.
    const unit = fc.constantFrom("a", "N", "é", "\\", "\t", "\n", "\r", "\b", "\v");
    const values = fc.array(fc.option(fc.string({ unit })), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(values, (values) => {
        expect(copyFields(values).split("\t").map(copyTextField)).toEqual(values);
      }),
    );
  });
});

describe("copyTextRows", () => {
  test("rows in batches, whatever the chunks' edges, even inside a character", async () => {
    const text = 'a\tb\\tc\t\\N\nd\té\t{"k":"\\\\u00e9"}\ng\th\ti\n';
    const whole = bytes(text);
    const expected = [
      ["a", "b\tc", null],
      ["d", "é", '{"k":"\\u00e9"}'],
      ["g", "h", "i"],
    ];
    for (let cut = 0; cut <= whole.length; cut++) {
      const batches = await readAll([whole.subarray(0, cut), whole.subarray(cut)], 3);
      expect(batches.flat()).toEqual(expected);
      expect(batches.every((b) => b.length > 0)).toBe(true);
    }
  });

  test("rows that repeat the fields above them, cut anywhere, read back as written", async () => {
    // Few distinct values, so that fields equal the one above (and are prefixes of each other) often.
    const value = fc.option(fc.constantFrom("", "a", "ab", "a\tb", "\\N", "é", '{"k": 1}'));
    const rows = fc.array(fc.array(value, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 12 });
    const cuts = fc.array(fc.nat(), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(rows, cuts, async (rows, cuts) => {
        const whole = bytes(rows.map((r) => `${copyFields(r)}\n`).join(""));
        const edges = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...edges].map((from, i) => whole.subarray(from, edges[i] ?? whole.length));
        expect((await readAll(chunks, 3)).flat()).toEqual(rows);
      }),
    );
  });

  test("holds about `batch` rows per batch", async () => {
    const chunks = Array.from({ length: 10 }, (_, i) => bytes(`${i}\tx\n`));
    const sizes = (await readAll(chunks, 2, 3)).map((b) => b.length);
    expect(sizes).toEqual([3, 3, 3, 1]);
  });
});

describe("copyTextRows refusals", () => {
  test("a row with too few or too many fields, and a stream that ends inside a row", async () => {
    const failure = (text: string) =>
      readAll([bytes(text)], 3).then(
        () => null,
        (error: Error) => error.message,
      );
    expect([await failure("a\tb\n"), await failure("a\tb\tc\td\n"), await failure("a\tb\tc\nd")]).toEqual([
      "a COPY row with 2 fields where 3 were expected",
      "a COPY row with more than 3 fields",
      "a COPY stream that ends inside a row",
    ]);
  });

  test("a reader that stops early reads the rest of the stream, so its connection is free again", async () => {
    let pushed = 0;
    const stream = new Readable({
      read() {
        pushed += 1;
        this.push(pushed <= 50 ? bytes(`${pushed}\tx\n`) : null);
      },
    });
    for await (const _ of copyTextRows(stream, { columns: 2, row: asRow, batch: 1 })) break;
    expect([stream.readableEnded, pushed]).toEqual([true, 51]);
  });
});
