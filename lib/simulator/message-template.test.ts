import { expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonValue } from "../events/event.ts";
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
        expect(template.text(values)).toBe(`<${escapeTimes(JSON.stringify(evaluated), depth - 1)}>`);
      },
    ),
    { numRuns: 500 },
  );
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
