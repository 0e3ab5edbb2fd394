/** A statement or a beneficiary's settlement whose figures differ between the oracle and the export. */
export interface StatementDifference {
  /** `statement <cloud>/<project_id>` or `kickbacks <beneficiary>`. */
  subject: string;
  lines: { line: string; oracle: string; export: string }[];
}

export interface StatementComparison {
  /** What was compared per project: a regular run's statements, or a correction's credit notes. */
  compared: "statements" | "credit notes";
  /** How many statements (or credit notes) were compared. */
  statements: number;
  settlements: number;
  differences: StatementDifference[];
}
