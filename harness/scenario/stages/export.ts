import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decimal, formatMoney, sum } from "../../../lib/foundation/money/decimal.ts";
import type { Total } from "../checks.ts";
import { engineEnv, need } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

const total = (documents: readonly Total[]) => formatMoney(sum(documents.map((d) => decimal(d.total))));

/** `engine export` as csv and json: the finalized run into `export/finalized`, a correction into `export/corrected`. */
export const exportStage: ReportedStage = {
  name: "export",
  async run(run) {
    const env = engineEnv(run);
    const write = async (runId: string, dir: string) => {
      for (const format of ["csv", "json"])
        await run.programs.run("engine", ["export", "--run", runId, "--format", format, "--out", dir], env);
      return JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as {
        statements?: Total[];
        credit_notes?: Total[];
      };
    };
    const statements = (await write(need(run, "meter").runId, run.dirs.finalized)).statements ?? [];
    const corrected = run.correction?.output ?? null;
    const creditNotes =
      corrected === null ? [] : ((await write(corrected.runId, run.dirs.corrected)).credit_notes ?? []);
    run.exported = {
      statements,
      creditNotes,
      standingDir: corrected === null ? run.dirs.finalized : run.dirs.corrected,
    };
    return `${statements.length} statements billing ${total(statements)}${corrected === null ? "" : `, ${creditNotes.length} credit notes totalling ${total(creditNotes)}`} into ${run.dirs.export}`;
  },
};
