import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { type ExportFormat, exportLines, exportRun } from "../../engine/export-run.ts";
import { explained, jsonFlag, report, withEngine } from "./command-support.ts";

/** `engine export --run --format --out`: a run's export directory. */
export const exportCommand = command({
  name: "export",
  description: "write a run's export directory",
  args: {
    run: { type: "string", required: true, valueHint: "id", description: "the run" },
    format: {
      type: "enum",
      options: ["json", "csv"],
      required: true,
      description: "json (run.json, statements, kickbacks) or csv (rated.csv)",
    },
    out: {
      type: "string",
      required: true,
      valueHint: "dir",
      description: "the directory to write into (created when missing)",
    },
    ...jsonFlag,
  },
  settings: engineDbSettings,
  run: ({ flags, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) => {
        const written = await exportRun(engine.sql, flags.run, flags.format as ExportFormat, flags.out);
        report(io, flags.json, written, () => exportLines(written));
      }),
    ),
});
