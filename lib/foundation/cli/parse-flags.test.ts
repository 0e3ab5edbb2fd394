import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import fc from "fast-check";
import { parseFlags } from "./parse-flags.ts";

const args: ArgsDef = {
  period: { type: "string", required: true, description: "month" },
  seed: { type: "string", default: "1", description: "seed" },
  format: { type: "enum", options: ["json", "csv"], description: "format" },
  keep: { type: "boolean", default: false, description: "keep" },
  verbose: { type: "boolean", alias: "v", description: "say more" },
  id: { type: "positional", required: false, description: "an id" },
};

describe("reading flags", () => {
  test("--name value, --name=value, switches, --no-, aliases, a positional and defaults", () => {
    expect(parseFlags(["--period", "2026-10", "--format=csv", "--keep", "-v", "abc"], args)).toEqual({
      values: { period: "2026-10", format: "csv", keep: true, verbose: true, id: "abc", seed: "1" },
      problems: [],
    });
    expect(
      parseFlags(["--period=2026-10", "--no-keep", "--keep=false", "--", "--id-like"], args).values,
    ).toEqual({
      period: "2026-10",
      keep: false,
      id: "--id-like",
      seed: "1",
    });
  });

  test("every problem at once", () => {
    expect(
      parseFlags(["--bogus", "--format", "xml", "--keep=maybe", "a", "b", "--seed"], args).problems,
    ).toEqual([
      "unknown flag --bogus",
      "--keep is a switch: give it alone, or =true or =false",
      "--seed needs a value",
      'unexpected argument "b"',
      "--period is required",
      '--format takes one of json, csv, got "xml"',
    ]);
  });

  test("no token list makes it throw", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom("--", "-", "--period", "--keep=", "-v"))),
        (tokens) => {
          const { problems } = parseFlags(tokens, args);
          expect(Array.isArray(problems)).toBe(true);
        },
      ),
    );
  });
});
