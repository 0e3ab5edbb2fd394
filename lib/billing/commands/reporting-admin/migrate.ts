import { command } from "../../../foundation/cli/command.ts";
import { migrateReporting } from "../../reporting/migrate.ts";
import { adminSettings, explained, jsonLine } from "./admin-support.ts";

/** `reporting-admin migrate`: the reporting schema brought up to date. */
export const migrateCommand = command({
  name: "migrate",
  description: "bring the reporting schema up to date (idempotent, safe to run twice at once)",
  settings: adminSettings,
  run: ({ config, io }) =>
    explained(async () => {
      const result = await migrateReporting(config.dbUrl.reveal());
      io.stdout(jsonLine({ applied: result.applied, partitions: result.partitions }));
    }),
});
