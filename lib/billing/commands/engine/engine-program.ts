import { type Command, commandGroup } from "../../../foundation/cli/command.ts";
import { correctCommand } from "./correct.ts";
import { detectLateCommand } from "./detect-late.ts";
import { exportCommand } from "./export.ts";
import { finalizeCommand } from "./finalize.ts";
import { kickbacksCommand } from "./kickbacks.ts";
import { migrateCommand } from "./migrate.ts";
import { periodsListCommand } from "./periods-list.ts";
import { priceCommand } from "./price.ts";
import { runCommand } from "./run.ts";
import { shardCommand } from "./shard.ts";

/**
 * The engine's command tree (docs/engine.md, Commands), one file per command beside this one
 * (decision 45). A refusal is a UsageError (exit 1, nothing stored changes); a database that cannot
 * be reached is one line without its URL.
 */
export function engineProgram(): Command {
  return commandGroup({
    name: "engine",
    description: "the metering engine: runs, finalization and exports of billing months",
    subCommands: {
      run: runCommand,
      correct: correctCommand,
      finalize: finalizeCommand,
      periods: commandGroup({
        name: "periods",
        description: "periods known to the engine",
        subCommands: { list: periodsListCommand },
      }),
      export: exportCommand,
      kickbacks: kickbacksCommand,
      price: priceCommand,
      "detect-late": detectLateCommand,
      migrate: migrateCommand,
      shard: shardCommand,
    },
  });
}
