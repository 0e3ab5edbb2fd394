import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { SvcError } from "../../foundation/errors/svc-error.ts";

/** The four files of `run --out` (docs/simulator.md#writing-a-month-to-files). */
const monthFileNames = ["notifications.jsonl", "events.jsonl", "oracle.json", "held-back.jsonl"] as const;

/** A path of an earlier run that could not be removed; the run must not mix months. */
export class StaleFilesError extends SvcError {
  readonly paths: string[];

  constructor(paths: string[], cause: unknown) {
    super(
      "internal",
      `cannot remove the files of an earlier run: ${paths.join(", ")}; remove them and run again`,
      {
        cause,
      },
    );
    this.paths = paths;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the directory and removes the four files an earlier run left there. Every removal is
 * attempted; a path still present afterwards ends the run, naming every such path at once, before
 * anything of this month is written beside a file of another.
 */
export async function clearMonthFiles(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  let firstCause: unknown = null;
  const stayed: string[] = [];
  for (const name of monthFileNames) {
    const path = join(dir, name);
    try {
      await rm(path, { force: true });
    } catch (cause) {
      firstCause ??= cause;
    }
    if (await exists(path)) stayed.push(path);
  }
  if (stayed.length > 0) throw new StaleFilesError(stayed, firstCause);
}
