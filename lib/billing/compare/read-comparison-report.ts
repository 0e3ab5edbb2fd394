import type { Comparison, Difference } from "./compare-oracle.ts";
import type { StatementComparison, StatementDifference } from "./statement-comparison.ts";

export class ComparisonReportError extends Error {
  override name = "ComparisonReportError";
}

const tally =
  /^compared (\d+) resources: (\d+) differ \((\d+) marked missing-create\)(?:, (\d+) keep the finalized quantity)?$/;
const resourceLine = /^(\S+?)( \[missing-create\])?: (.+)$/;
const side = String.raw`(-|\S+ \(\S+\))`;
const dimensionLine = new RegExp(String.raw`^(\S+) oracle ${side} export ${side}$`);
const statementTally =
  /^compared (\d+) (statements|credit notes) and (\d+) kickback settlements: (\d+) differ$/;
const statementLine = /^((?:statement|credit note|kickbacks) \S+): (.+)$/;
const figure = String.raw`(-|\S+(?: \(\S+\))?)`;
const figureLine = new RegExp(String.raw`^(\S+) oracle ${figure} export ${figure}$`);

function statementSection(lines: readonly string[], last: string): StatementComparison {
  const counted = statementTally.exec(last);
  if (counted === null) throw new ComparisonReportError(`not a statement tally: ${JSON.stringify(last)}`);
  const differences: StatementDifference[] = lines.map((line) => {
    const m = statementLine.exec(line);
    if (m === null)
      throw new ComparisonReportError(`not a line of a differing statement: ${JSON.stringify(line)}`);
    return {
      subject: m[1] ?? "",
      lines: (m[2] ?? "").split("; ").map((part) => {
        const d = figureLine.exec(part);
        if (d === null) throw new ComparisonReportError(`not a differing figure: ${JSON.stringify(part)}`);
        return { line: d[1] ?? "", oracle: d[2] ?? "", export: d[3] ?? "" };
      }),
    };
  });
  if (Number(counted[4]) !== differences.length)
    throw new ComparisonReportError(
      `the tally (${last}) disagrees with the ${differences.length} lines above it`,
    );
  return {
    compared: counted[2] === "credit notes" ? "credit notes" : "statements",
    statements: Number(counted[1]),
    settlements: Number(counted[3]),
    differences,
  };
}

/**
 * Reads the lines `simulator compare` prints (`comparisonReport`) back into a Comparison, so that a
 * program running compare as a process (the scenario runner) knows which resources differ and by what.
 * With statements compared (`--registry`), their lines and tally follow the resources' tally. Refuses a
 * report without its tally line, or whose tally disagrees with its lines.
 */
export function readComparisonReport(all: readonly string[]): Comparison {
  const at = all.findIndex((line) => tally.test(line));
  const lines = at === -1 ? all : all.slice(0, at + 1);
  const statements =
    at === -1 || at === all.length - 1
      ? undefined
      : statementSection(all.slice(at + 1, -1), all.at(-1) ?? "");
  const last = lines.at(-1) ?? "";
  const counted = tally.exec(last);
  if (counted === null)
    throw new ComparisonReportError(`the comparison ends without its tally line: ${JSON.stringify(last)}`);
  const differences: Difference[] = lines.slice(0, -1).map((line) => {
    const m = resourceLine.exec(line);
    if (m === null)
      throw new ComparisonReportError(`not a line of a differing resource: ${JSON.stringify(line)}`);
    return {
      resource: m[1] ?? "",
      missingCreate: m[2] !== undefined,
      lines: (m[3] ?? "").split("; ").map((part) => {
        const d = dimensionLine.exec(part);
        if (d === null) throw new ComparisonReportError(`not a differing line: ${JSON.stringify(part)}`);
        return { line: d[1] ?? "", oracle: d[2] ?? "", export: d[3] ?? "" };
      }),
    };
  });
  const marked = differences.filter((d) => d.missingCreate).length;
  if (Number(counted[2]) !== differences.length || Number(counted[3]) !== marked)
    throw new ComparisonReportError(
      `the tally (${last}) disagrees with the ${differences.length} lines above it`,
    );
  return {
    resources: Number(counted[1]),
    differences,
    ...(counted[4] === undefined ? {} : { kept: Number(counted[4]) }),
    ...(statements === undefined ? {} : { statements }),
  };
}
