import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { copyFields } from "./copy-in.ts";
import { copyLeadBytes, copyLineBound, writeCopyLine } from "./copy-text-bytes.ts";

const decoder = new TextDecoder();

/** The bytes `writeCopyLine` writes, in a buffer of exactly the bound so an overrun would show. */
function line(values: readonly (string | null)[], lead: Uint8Array | null): string {
  const buffer = new Uint8Array(copyLineBound(values, lead));
  return decoder.decode(buffer.subarray(0, writeCopyLine(buffer, 0, values, lead)));
}

describe("writeCopyLine", () => {
  test("writes the text copyFields builds, byte for byte, with and without a lead", () => {
    // The characters COPY treats specially, beside plain ones, multibyte ones and a surrogate pair.
    const unit = fc.constantFrom("a", "N", "é", "€", "😀", "\\", "\t", "\n", "\r", "\b");
    const values = fc.array(fc.option(fc.string({ unit })), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(values, values, (leading, values) => {
        expect(line(values, null)).toBe(`${copyFields(values)}\n`);
        expect(line(values, copyLeadBytes(leading))).toBe(`${copyFields([...leading, ...values])}\n`);
      }),
    );
  });

  test("writes at the offset it is given and says where the line ends", () => {
    const buffer = new Uint8Array(64).fill(120);
    const end = writeCopyLine(buffer, 3, ["a\tb", null], null);
    expect([decoder.decode(buffer.subarray(0, end + 1)), end]).toEqual(["xxxa\\tb\t\\N\nx", 11]);
  });
});
