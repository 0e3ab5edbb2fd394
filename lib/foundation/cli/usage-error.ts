/**
 * A person's mistake on a command line or in the environment: every bad flag and variable at once.
 * The one refusal type of every `cmd/*.ts` (decision 40); `runCli` prints it and exits 1. HTTP
 * errors (`lib/foundation/errors`) stay on the HTTP side.
 */
export class UsageError extends Error {
  override name = "UsageError";
  readonly problems: readonly string[];

  constructor(problems: readonly string[] | string, options: { cause?: unknown } = {}) {
    const list = typeof problems === "string" ? [problems] : problems;
    super(list.join("; "), options);
    this.problems = list;
  }
}

/** A part of a program that a later issue builds: `runCli` says so plainly and exits 2. */
export class NotBuiltError extends Error {
  override name = "NotBuiltError";
}

/**
 * Collects refusals so that a command names every bad flag at once. Value parsers throw RangeError
 * (`parsePeriod`, `parseDuration`) or UsageError; anything else is a bug and goes on up.
 */
export class Problems {
  readonly list: string[] = [];

  add(problem: string): void {
    this.list.push(problem);
  }

  /** The value `read` returns, or `undefined` with its error's message recorded under `prefix`. */
  attempt<T>(prefix: string, read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (error instanceof UsageError) this.list.push(...error.problems);
      else if (error instanceof RangeError)
        this.list.push(prefix === "" ? error.message : `${prefix} ${error.message}`);
      else throw error;
      return undefined;
    }
  }

  /** Throws one UsageError when anything was recorded. */
  throwIfAny(): void {
    if (this.list.length > 0) throw new UsageError(this.list);
  }
}
