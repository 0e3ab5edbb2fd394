import { describe, expect, test } from "bun:test";
import { integer } from "../config/fields.ts";
import { runCaptured } from "./capture-io.ts";
import { command, commandGroup } from "./command.ts";
import { parseInteger } from "./flag-values.ts";
import { NotBuiltError, Problems, UsageError } from "./usage-error.ts";

const ran: unknown[] = [];
const count = command({
  name: "count",
  description: "count to a number",
  args: { to: { type: "string", required: true, description: "the last number" } },
  settings: { step: integer("TOY_STEP", { default: 1 }, { min: 1 }) },
  parse: (flags) => {
    const problems = new Problems();
    const to = problems.attempt("--to", () => parseInteger(flags.to, { min: 1 }));
    problems.throwIfAny();
    return { to: to ?? 0 };
  },
  run: ({ options, config }) => {
    if (options.to % config.step !== 0) throw new UsageError("--to must be a multiple of TOY_STEP");
    ran.push(options.to);
  },
});
const toy = commandGroup({
  name: "toy",
  description: "a toy program",
  subCommands: {
    count,
    later: command({
      name: "later",
      description: "not yet",
      run: () => {
        throw new NotBuiltError("toy later is not built yet");
      },
    }),
    broken: command({
      name: "broken",
      description: "fails",
      run: () => {
        throw new Error("the disk is full");
      },
    }),
  },
});

describe("the one way our programs run", () => {
  test("a command runs with typed options and settings", async () => {
    expect(await runCaptured(toy, ["count", "--to", "4"], { TOY_STEP: "2" })).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
    expect(ran).toEqual([4]);
  });

  test("--help prints every flag with its meaning and default and every variable, exit 0", async () => {
    const help = await runCaptured(toy, ["count", "--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("toy count: count to a number\n\nUsage: toy count --to <value>\n");
    expect(help.stdout).toMatch(/--to <value>\s+the last number \(required\)/);
    expect(help.stdout).toMatch(/TOY_STEP\s+\(default: 1\)/);
    expect(help.stdout).not.toContain("\u001b[");
    const top = await runCaptured(toy, ["-h"], {});
    expect(top.stdout).toMatch(/count\s+count to a number/);
  });

  test("a bad flag and a bad variable are named together, exit 1", async () => {
    expect(await runCaptured(toy, ["count", "--to", "x", "--fast"], { TOY_STEP: "0" })).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        "toy: unknown flag --fast",
        'toy: --to takes an integer of at least 1, got "x"',
        'toy: TOY_STEP takes an integer (positive), got "0"',
        "toy: see 'toy count --help'",
        "",
      ].join("\n"),
    });
    // An unknown flag does not hide a bad value (decision 40).
    expect(
      (await runCaptured(toy, ["count", "--fast", "--to", "x"], {})).stderr.split("\n").slice(0, 2),
    ).toEqual(["toy: unknown flag --fast", 'toy: --to takes an integer of at least 1, got "x"']);
    const value = await runCaptured(toy, ["count", "--to", "x"], { TOY_STEP: "0" });
    expect(value.stderr.split("\n").slice(0, 2)).toEqual([
      'toy: --to takes an integer of at least 1, got "x"',
      'toy: TOY_STEP takes an integer (positive), got "0"',
    ]);
  });

  test("a rule joining flags and settings refuses from run, exit 1", async () => {
    const out = await runCaptured(toy, ["count", "--to", "3"], { TOY_STEP: "2" });
    expect(out).toMatchObject({
      code: 1,
      stderr: "toy: --to must be a multiple of TOY_STEP\ntoy: see 'toy count --help'\n",
    });
  });

  test("unknown and missing commands, not built, and failures", async () => {
    expect(await runCaptured(toy, ["jump"], {})).toMatchObject({
      code: 1,
      stderr: "toy: unknown command \"jump\": one of count, later, broken\ntoy: see 'toy --help'\n",
    });
    expect(await runCaptured(toy, [], {})).toMatchObject({
      code: 1,
      stderr: "toy: toy needs a command: one of count, later, broken\ntoy: see 'toy --help'\n",
    });
    expect(await runCaptured(toy, ["later"], {})).toEqual({
      code: 2,
      stdout: "",
      stderr: "toy later is not built yet\n",
    });
    expect(await runCaptured(toy, ["broken"], {})).toEqual({
      code: 2,
      stdout: "",
      stderr: "toy: the disk is full\n",
    });
  });
});
