import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type ProgramRun, startProgram } from "../process/run-program.ts";

/** Our programs a scenario runs, by their entry script. */
type ProgramName = "reporting" | "reporting-admin" | "engine" | "simulator" | "collector";

export interface RunOptions {
  /** Its stdout holds a secret (an issued credential): the log says so instead of keeping it. */
  secretOutput?: boolean;
}

/** A program that ended otherwise than the scenario needed: its words and where its log is. */
export class ProgramFailure extends Error {
  override name = "ProgramFailure";
  constructor(
    readonly program: string,
    readonly run: ProgramRun,
    readonly log: string,
  ) {
    const said = (run.stderr.trim() || run.stdout.trim()).split("\n").slice(-6).join("\n  ");
    super(`${program} exited ${run.code}: ${said || "(said nothing)"} (log: ${log})`);
  }
}

/**
 * Runs our programs as their own processes, the way an operator does (`bun cmd/<name>.ts`), each with
 * only PATH and the variables given, and appends the command, its stdout and its stderr to
 * `<logs>/<program>.log`, so that `--out` keeps every program's log.
 */
export class Programs {
  constructor(readonly logs: string) {
    mkdirSync(logs, { recursive: true });
  }

  logOf(program: ProgramName): string {
    return join(this.logs, `${program}.log`);
  }

  /** Runs it and returns what it printed, whatever its exit status. */
  attempt(
    program: ProgramName,
    args: readonly string[],
    env: Record<string, string>,
    options: RunOptions = {},
  ): Promise<ProgramRun> {
    return this.start(program, args, env, options).done;
  }

  /** Starts it: its process id at once, what it printed (logged) once it ends. */
  start(
    program: ProgramName,
    args: readonly string[],
    env: Record<string, string>,
    options: RunOptions = {},
  ): { pid: number; done: Promise<ProgramRun> } {
    const started = startProgram(`cmd/${program}.ts`, args, env);
    const done = started.done.then((run) => {
      const stdout = options.secretOutput === true ? "(stdout holds a secret: not logged)\n" : run.stdout;
      appendFileSync(
        this.logOf(program),
        `$ ${program} ${args.join(" ")}\n${stdout}${run.stderr}(exit ${run.code})\n\n`,
      );
      return run;
    });
    return { pid: started.pid, done };
  }

  /** Runs it and returns its stdout lines; any exit but 0 is a ProgramFailure. */
  async run(
    program: ProgramName,
    args: readonly string[],
    env: Record<string, string>,
    options: RunOptions = {},
  ): Promise<string[]> {
    const run = await this.attempt(program, args, env, options);
    if (run.code !== 0)
      throw new ProgramFailure(`${program} ${args[0] ?? ""}`.trim(), run, this.logOf(program));
    return run.stdout.split("\n").filter((line) => line !== "");
  }
}
