import { command } from "../../../foundation/cli/command.ts";
import { migrateEngine } from "../../engine/engine-database.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { explained, jsonFlag, report } from "./command-support.ts";

/** `engine migrate`: the engine schema brought up to date. */
export const migrateCommand = command({
  name: "migrate",
  description: "bring the engine schema up to date (safe to run twice at once)",
  args: jsonFlag,
  settings: engineDbSettings,
  run: ({ flags, config, io }) =>
    explained(async () => {
      const applied = await migrateEngine(config.dbUrl.reveal());
      report(io, flags.json, { applied }, () => [`engine schema up to date (${applied} migrations applied)`]);
    }),
});
