import { type Command, command } from "../../../lib/foundation/cli/command.ts";
import { parseInteger } from "../../../lib/foundation/cli/flag-values.ts";
import { Problems } from "../../../lib/foundation/cli/usage-error.ts";
import { builtCapabilities, missingFor } from "../../scenario/capabilities.ts";
import type { Scenario } from "../../scenario/scenario.ts";
import { distinctRuns, runMany } from "./run-many.ts";

/** `1,4`, `1-5` or both: the seeds in the order given, each once; a RangeError completes "--seeds ...". */
export function parseSeeds(text: string): number[] {
  const seeds: number[] = [];
  for (const part of text.split(",")) {
    const range = /^(\d+)-(\d+)$/.exec(part.trim());
    const [from, to] = range === null ? [part.trim(), part.trim()] : [range[1] ?? "", range[2] ?? ""];
    const a = parseInteger(from, { min: 0 });
    const b = parseInteger(to, { min: 0 });
    if (b < a) throw new RangeError(`has a range that runs backwards: ${part}`);
    for (let seed = a; seed <= b; seed++) if (!seeds.includes(seed)) seeds.push(seed);
  }
  return seeds;
}

/**
 * `bun scenario all --seeds 1-5`: every runnable scenario for each seed. With `--golden-seeds` a
 * scenario that keeps golden months runs those seeds instead, so one pass is the golden-month
 * regression and every other scenario once, no month twice (what CI runs); a scenario declared
 * `inCiPass: false` is left out of that pass.
 */
export function allCommand(scenarios: readonly Scenario[]): Command {
  return command({
    name: "all",
    description: "run every scenario whose programs are built, for each seed",
    args: {
      seeds: {
        type: "string",
        valueHint: "list",
        default: "1",
        description: "seeds: a comma list or a range, 1,4 or 1-5",
      },
      "golden-seeds": {
        type: "boolean",
        default: false,
        description:
          "a scenario that keeps golden months runs its golden seeds instead (the regression and every other scenario in one pass: CI's, which leaves out scenario cluster)",
      },
    },
    parse: (flags) => {
      const problems = new Problems();
      const seeds = problems.attempt("--seeds", () => parseSeeds(flags.seeds));
      problems.throwIfAny();
      return { seeds: seeds as number[], goldenSeeds: flags["golden-seeds"] };
    },
    run: async ({ options, io }) => {
      const built = await builtCapabilities();
      const runnable = scenarios.filter(
        (s) => missingFor(s.needs, built) === null && !(options.goldenSeeds && s.inCiPass === false),
      );
      const seedsOf = (s: Scenario) =>
        options.goldenSeeds && s.goldenSeeds.length > 0 ? s.goldenSeeds : options.seeds;
      return runMany(
        io,
        distinctRuns(runnable.flatMap((scenario) => seedsOf(scenario).map((seed) => ({ scenario, seed })))),
        false,
      );
    },
  });
}
