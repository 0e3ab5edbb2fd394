import { type Command, commandGroup } from "../../../lib/foundation/cli/command.ts";
import type { Scenario } from "../../scenario/scenario.ts";
import { allCommand } from "./all.ts";
import { explainCommand } from "./explain.ts";
import { goldenCommand } from "./golden.ts";
import { listCommand } from "./list.ts";
import { scenarioRunCommand } from "./scenario-run.ts";
import { upCommand } from "./up.ts";

/**
 * The scenario harness's command tree, one file per command beside this one (decision 45): `up`,
 * `list`, `explain`, `all`, `regression`, `refresh-golden`, and one per scenario of `scenarios`
 * (declared in `scenarios/`, handed in by `cmd/scenario.ts`).
 */
export function scenarioProgram(scenarios: readonly Scenario[]): Command {
  const subCommands: Record<string, Command> = {
    up: upCommand,
    list: listCommand(scenarios),
    explain: explainCommand,
    all: allCommand(scenarios),
    regression: goldenCommand(scenarios, {
      name: "regression",
      description:
        "the golden-month regression: run every golden seed and compare its totals with fixtures/golden",
      write: false,
    }),
    "refresh-golden": goldenCommand(scenarios, {
      name: "refresh-golden",
      description:
        "run every golden seed and write its totals to fixtures/golden when the run passes (review the diff before committing)",
      write: true,
    }),
  };
  for (const s of scenarios) subCommands[s.name] = scenarioRunCommand(s);
  return commandGroup({
    name: "scenario",
    description: "the scenario harness: private services, and simulated months run end to end",
    subCommands,
  });
}
