import { printLines } from "../../../foundation/cli/cli-io.ts";
import { command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";

/** `simulator compare`: the oracle rated with a pricing model, compared with an engine export. */
export const compareCommand = command({
  // every failure of the simulator exits 1, a bill that differs too (docs/simulator.md#exit-status)
  failureExit: exitCodes.fault,
  name: "compare",
  description: "rate the oracle with a pricing model and compare it per resource with an engine export",
  args: {
    export: {
      type: "string",
      valueHint: "dir",
      required: true,
      description: "the engine's export directory (with rated.csv)",
    },
    oracle: { type: "string", valueHint: "file", required: true, description: "the month's oracle.json" },
    pricing: {
      type: "string",
      valueHint: "file",
      required: true,
      description: "the pricing model the engine ran with",
    },
    registry: {
      type: "string",
      valueHint: "file",
      description:
        "a registry snapshot (projects, relations, the adjustment walk): compare the statements and kickbacks too",
    },
    corrects: {
      type: "string",
      valueHint: "dir",
      description:
        "with a correction's export: the export of the run it corrects (a line keeps its finalized quantity when its amount did not move; with --registry the credit notes are compared too)",
    },
  },
  run: async ({ flags, io }) => {
    // Loaded here, not at the top: `run` starts (and installs its signal handlers) no later for it.
    const [{ compareFiles }, { comparisonReport }] = await Promise.all([
      import("../../compare/compare-files.ts"),
      import("../../compare/compare-oracle.ts"),
    ]);
    const comparison = await compareFiles({
      exportDir: flags.export,
      oracle: flags.oracle,
      pricing: flags.pricing,
      registry: flags.registry,
      corrects: flags.corrects,
    });
    printLines(io.stdout, comparisonReport(comparison));
    const differ = comparison.differences.length;
    const statementsDiffer = comparison.statements?.differences.length ?? 0;
    if (differ > 0) io.stderr(`${differ} resource${differ === 1 ? "" : "s"} differ\n`);
    if (statementsDiffer > 0)
      io.stderr(`${statementsDiffer} statement${statementsDiffer === 1 ? "" : "s"} or settlements differ\n`);
    if (differ > 0 || statementsDiffer > 0) io.exit(exitCodes.differs);
  },
});
