import { printLines } from "../../../foundation/cli/cli-io.ts";
import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { type ExportFormat, exportRun } from "../../engine/export-run.ts";
import { explained, withEngine } from "./command-support.ts";

/** `engine export --run --format --out`: a run's export directory. */
export const exportCommand = command({
  name: "export",
  description: "Write a run's export directory",
  args: {
    run: { type: "string", required: true, description: "the run id" },
    format: {
      type: "enum",
      options: ["json", "csv"],
      required: true,
      description: "json (run.json, statements, kickbacks) or csv (rated.csv)",
    },
    out: {
      type: "string",
      required: true,
      description: "the directory to write into (created when missing)",
    },
  },
  settings: engineDbSettings,
  run: ({ flags, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) =>
        printLines(
          io.stdout,
          await exportRun(engine.sql, flags.run, flags.format as ExportFormat, flags.out),
        ),
      ),
    ),
});
