import { type Command, command } from "../../../lib/foundation/cli/command.ts";
import { UsageError } from "../../../lib/foundation/cli/usage-error.ts";
import { builtCapabilities, missingFor } from "../../scenario/capabilities.ts";
import type { Capability, Scenario } from "../../scenario/scenario.ts";
import { runMany, type ScenarioSeed } from "./run-many.ts";

/** The golden seeds of the runnable scenarios (or of one). */
function goldenRuns(
  scenarios: readonly Scenario[],
  built: ReadonlySet<Capability>,
  only: string | undefined,
): ScenarioSeed[] {
  const chosen = scenarios.filter(
    (s) =>
      s.goldenSeeds.length > 0 &&
      (only === undefined || s.name === only) &&
      missingFor(s.needs, built) === null,
  );
  if (chosen.length === 0)
    throw new UsageError(`no runnable scenario named ${JSON.stringify(only)} keeps golden months`);
  return chosen.flatMap((scenario) => scenario.goldenSeeds.map((seed) => ({ scenario, seed })));
}

/**
 * Every golden seed of the runnable scenarios: `regression` compares each with the month kept in
 * fixtures/golden, `refresh-golden` writes it there when the run passes.
 */
export function goldenCommand(
  scenarios: readonly Scenario[],
  { name, description, write }: { name: string; description: string; write: boolean },
): Command {
  return command({
    name,
    description,
    args: { scenario: { type: "string", valueHint: "name", description: "only this scenario" } },
    run: async ({ flags, io }) =>
      runMany(io, goldenRuns(scenarios, await builtCapabilities(), flags.scenario), write),
  });
}
