/** One thing a scenario proves: a line saying what, and on failure the lines saying where. */
type CheckStatus = "pass" | "fail" | "pending";

export interface Check {
  status: CheckStatus;
  text: string;
  details: string[];
}

const shown = 10;

function limited(lines: string[]): string[] {
  return lines.length <= shown ? lines : [...lines.slice(0, shown), `… and ${lines.length - shown} more`];
}

/** A check that passes when `ok`, with at most ten of its details kept on failure. */
export const check = (ok: boolean, text: string, details: string[] = []): Check => ({
  status: ok ? "pass" : "fail",
  text,
  details: ok ? [] : limited(details),
});
