import { type ExportFormat, exportLines, exportRun } from "../../engine/export-run.ts";
import { engineCommand, jsonFlag, report } from "./command-support.ts";

/** `engine export --run --format --out`: a run's export directory. */
export const exportCommand = engineCommand({
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
  work: async (engine, { flags, io }) => {
    const written = await exportRun(engine.sql, flags.run, flags.format as ExportFormat, flags.out);
    report(io, flags.json, written, () => exportLines(written));
  },
});
