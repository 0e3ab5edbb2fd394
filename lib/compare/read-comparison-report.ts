import type { Comparison, Difference } from "./compare-oracle.ts";

export class ComparisonReportError extends Error {
  override name = "ComparisonReportError";
}

const tally = /^compared (\d+) resources: (\d+) differ \((\d+) marked missing-create\)$/;
const resourceLine = /^(\S+?)( \[missing-create\])?: (.+)$/;
const side = String.raw`(-|\S+ \(\S+\))`;
const dimensionLine = new RegExp(String.raw`^(\S+) oracle ${side} export ${side}$`);

/**
 * Reads the lines `simulator compare` prints (`comparisonReport`) back into a Comparison, so that a
 * program running compare as a process (the scenario runner) knows which resources differ and by what.
 * Refuses a report without its tally line, or whose tally disagrees with its lines.
 */
export function readComparisonReport(lines: readonly string[]): Comparison {
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
  return { resources: Number(counted[1]), differences };
}
