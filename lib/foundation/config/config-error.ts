/** One refused variable: its name and what it takes. Never holds a secret's value. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** The whole configuration was refused; `problems` names every refused variable at once. */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[], options: { cause?: unknown } = {}) {
    super(problems.map((p) => p.message).join("; "), options);
    this.name = "ConfigError";
    this.problems = problems;
  }
}
