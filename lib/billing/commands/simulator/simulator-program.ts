import { type Command, commandGroup } from "../../../foundation/cli/command.ts";
import { compareCommand } from "./compare.ts";
import { replayCommand } from "./replay.ts";
import { runCommand } from "./run.ts";

/** The simulator's command tree, one file per command beside this one (decision 45). */
export function simulatorProgram(): Command {
  return commandGroup({
    name: "simulator",
    description: "the platform simulator: a seeded month, its faults and its oracle",
    subCommands: { run: runCommand, replay: replayCommand, compare: compareCommand },
  });
}
