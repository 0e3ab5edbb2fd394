import { join } from "node:path";
import type { Comparison } from "../../../lib/billing/compare/compare-oracle.ts";
import { readComparisonReport } from "../../../lib/billing/compare/read-comparison-report.ts";
import { exitCodes } from "../../../lib/foundation/cli/exit-codes.ts";
import { ProgramFailure } from "../programs.ts";
import { type Compared, need, runPricingModel, type ScenarioRun } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/**
 * `simulator compare` of one export. A correction's export is compared with the export of the run it
 * corrects too (`corrects`: a line whose amount did not move keeps its finalized quantity). With a
 * registry, the statements and kickbacks of a regular run's export are compared too, or a correction's
 * credit notes against the finalized ones.
 */
async function compare(
  run: ScenarioRun,
  dir: string,
  statements: boolean,
  corrects?: string,
): Promise<Comparison> {
  const args = [
    "compare",
    "--export",
    dir,
    "--oracle",
    // After the syncs, the oracle with the members they booked (decision 181).
    run.drive?.seen()?.oraclePath ?? join(run.dirs.month, "oracle.json"),
    "--pricing",
    runPricingModel(run),
    ...(statements ? ["--registry", run.dirs.registry] : []),
    ...(corrects === undefined ? [] : ["--corrects", corrects]),
  ];
  const result = await run.programs.attempt("simulator", args, {});
  const lines = result.stdout.split("\n").filter((l) => l !== "");
  // Exit 3 is the comparison's "differs": a result, read below like an agreement.
  if (
    (result.code !== exitCodes.ok && result.code !== exitCodes.differs) ||
    !lines.some((l) => /^compared \d+ resources/.test(l))
  )
    throw new ProgramFailure("simulator compare", result, run.programs.logOf("simulator"));
  return readComparisonReport(lines);
}

function comparedLine(c: Compared): string {
  const resources =
    c.standing === c.finalized
      ? `simulator compare: ${c.finalized.resources} resources, ${c.finalized.differences.length} differ`
      : `simulator compare: ${c.finalized.resources} resources; the finalized bill: ${c.finalized.differences.length} differ, the corrected bill: ${c.standing.differences.length} differ`;
  const s = c.standing.statements;
  return `${resources}${s === undefined ? "" : `; ${s.statements} ${s.compared} and ${s.settlements} kickback settlements, ${s.differences.length} differ`}`;
}

/** Each export proven against the oracle: the finalized bill, and the corrected one when a correction stands. */
export const compareStage: ReportedStage = {
  name: "compare",
  async run(run) {
    const adjusted = run.registry !== undefined;
    const { finalized: finalizedDir } = run.dirs;
    const { standingDir } = need(run, "exported");
    // A finalized bill that a correction amends is not the oracle's: its credit notes are compared.
    const corrected = standingDir !== finalizedDir;
    const finalized = await compare(run, finalizedDir, adjusted && !corrected);
    const standing = corrected ? await compare(run, standingDir, adjusted, finalizedDir) : finalized;
    run.compared = { finalized, standing };
    return comparedLine(run.compared);
  },
};
