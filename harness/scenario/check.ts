/** One thing a scenario proves: a line saying what, and on failure the lines saying where. */
type CheckStatus = "pass" | "fail" | "pending";

export interface Check {
  status: CheckStatus;
  text: string;
  details: string[];
}
