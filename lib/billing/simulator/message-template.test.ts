import { expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonValue } from "../../foundation/json/json-value.ts";
import { evaluate, hole, type Spec, TextTemplate } from "./message-template.ts";

/** A hole reads the input's value at its index; any JSON value, strings with quotes and controls included. */
type Input = JsonValue[];

const json: fc.Arbitrary<JsonValue> = fc.jsonValue() as fc.Arbitrary<JsonValue>;

const specArb: fc.Arbitrary<Spec<Input>> = fc.letrec<{ spec: Spec<Input> }>((tie) => ({
  spec: fc.oneof(
    { depthSize: "small" },
    fc.oneof(
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.nat({ max: 5 }).map((i) => hole<Input>((input) => input[i] ?? null)),
    fc.array(tie("spec"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("spec"), { maxKeys: 4 }),
  ),
})).spec;

const escapeTimes = (text: string, times: number) => {
  let out = text;
  for (let i = 0; i < times; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
};

test("a filled template is the serialized evaluation, escaped depth − 1 times, inside its frame", () => {
  fc.assert(
    fc.property(
      specArb,
      fc.array(json, { minLength: 6, maxLength: 6 }),
      fc.integer({ min: 1, max: 3 }),
      (spec, input, depth) => {
        const template = new TextTemplate(spec, depth, { prefix: "<", suffix: ">" });
        const values = template.values(input);
        const evaluated = evaluate(spec, input);
        expect(template.object(values)).toEqual(evaluated);
        const text = template.text(values);
        expect(text).toBe(`<${escapeTimes(JSON.stringify(evaluated), depth - 1)}>`);
        expect(Buffer.from(template.utf8(values)).toString()).toBe(text);
      },
    ),
    { numRuns: 500 },
  );
});

test("UTF-8 of printable ASCII, numbers, escapes, non-ASCII text and a text larger than the shared buffer", () => {
  const spec: Spec<Input> = {
    s: hole((i) => i[0] ?? null),
    n: [hole((i) => i[1] ?? null)],
    o: hole((i) => i[2] ?? null),
  };
  const template = new TextTemplate(spec, 3);
  for (const input of [
    ["plain-ascii 0123", 42, null],
    ['quote " back \\ tab \t', -0.5, { é: "😀" }],
    ["ünïcödé €", Number.NaN, [true, false]],
    ["x".repeat(200_000), 1e21, "\u0000\u001f\u007f"],
  ] as Input[]) {
    const values = template.values(input);
    expect(Buffer.from(template.utf8(values)).toString()).toBe(template.text(values));
  }
});

test("holes are filled in document order, each value as JSON would write it", () => {
  const spec: Spec<Input> = {
    a: hole((i) => i[0] ?? null),
    b: [1, hole((i) => i[1] ?? null)],
    c: 'say "hi"',
  };
  const template = new TextTemplate(spec, 2);
  expect(template.text(['quote " and \\ and \n', { x: [true] }])).toBe(
    JSON.stringify(
      JSON.stringify({ a: 'quote " and \\ and \n', b: [1, { x: [true] }], c: 'say "hi"' }),
    ).slice(1, -1),
  );
});
