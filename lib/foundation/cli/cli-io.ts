/**
 * What a program's commands reach of the world beyond their flags and environment: its output, the
 * terminal, its working directory, its interrupts and its exit. `cmd/*.ts` hands `processIo` to
 * `runCli`; tests hand collectors (`capture-io.ts`). Commands print through it, never through
 * `process.stdout`, so that a command tree runs the same in a test as in its process (decision 45).
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** stdout is a terminal: color and live lines are for it only. */
  isTerminal: boolean;
  /** stderr is a terminal: progress lines drawn in place go there only then. */
  stderrIsTerminal: boolean;
  /** The terminal's width when stdout is one (help text wraps to it; to 80 otherwise). */
  columns: number | undefined;
  /** Where relative paths of the command line are read from. */
  cwd: string;
  /** Registers what SIGINT and SIGTERM do now; the last registration wins. */
  onInterrupt(handler: () => void): void;
  exit(code: number): never;
}

/**
 * What an `exit` that cannot end the process throws instead (a test's captured run): `runCli` lets
 * it pass, so a command that exits mid-way ends its run with that code.
 */
export class CliExit extends Error {
  override name = "CliExit";
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

let interrupt: () => void = () => process.exit(130);
let listening = false;

/** The process's own: stdout, stderr, its terminal, its working directory, its signals. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTerminal: process.stdout.isTTY === true,
  stderrIsTerminal: process.stderr.isTTY === true,
  columns: process.stdout.isTTY === true ? process.stdout.columns : undefined,
  cwd: process.cwd(),
  onInterrupt: (handler) => {
    interrupt = handler;
    if (listening) return;
    listening = true;
    process.on("SIGINT", () => interrupt());
    process.on("SIGTERM", () => interrupt());
  },
  exit: (code) => process.exit(code),
};

/** Writes each line with its newline. */
export function printLines(write: (text: string) => void, lines: readonly string[]): void {
  for (const line of lines) write(`${line}\n`);
}
