import { command } from "../../../foundation/cli/command.ts";
import { migrateEngine } from "../../engine/engine-database.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { explained } from "./command-support.ts";

/** `engine migrate`: the engine schema brought up to date. */
export const migrateCommand = command({
  name: "migrate",
  description: "Bring the engine schema up to date (safe to run twice at once)",
  settings: engineDbSettings,
  run: ({ config, io }) =>
    explained(async () => {
      const applied = await migrateEngine(config.dbUrl.reveal());
      io.stdout(`engine schema up to date (${applied} migrations applied)\n`);
    }),
});
