/**
 * `./svc build`: each program compiled to one executable with `bun build --compile`, with the files
 * it reads at run time embedded (decision 517). Bun 1.4 embeds an `--asset` directory under its own
 * name and an `--asset` file under its base name, so the files are first laid out under one directory,
 * `shipped/`, by their repository paths: `lib/foundation/process/shipped-path.ts` reads them back from there.
 * Used by `scripts/build.ts` and by the test that starts the services from their executables.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { apiDocsFiles } from "../../lib/foundation/http/api-docs-routes.ts";
import { shippedDirName } from "../../lib/foundation/process/shipped-path.ts";
import { runCommand } from "../process/run-command.ts";

const root = join(import.meta.dir, "../..");

/** The programs a deployment runs, by their entry script `cmd/<name>.ts` (`scenario` is the harness's). */
export const deployedPrograms = [
  "reporting",
  "reporting-admin",
  "engine",
  "collector",
  "simulator",
  "netview",
] as const;
export type DeployedProgram = (typeof deployedPrograms)[number];

/** What the programs read at run time through `shippedPath`: the migrations and the API page's files. */
const shippedFiles = ["drizzle", ...apiDocsFiles];

/**
 * Compiles each program into `<outDir>/<program>`, one at a time (a compile takes a core and 250 MB),
 * and says each executable's path and the time it took.
 */
export async function compilePrograms(
  programs: readonly DeployedProgram[],
  outDir: string,
  built: (program: DeployedProgram, path: string, ms: number) => void = () => {},
): Promise<Record<string, string>> {
  const staging = mkdtempSync(join(tmpdir(), "svc-build-"));
  try {
    const shipped = join(staging, shippedDirName);
    for (const file of shippedFiles) {
      mkdirSync(dirname(join(shipped, file)), { recursive: true });
      cpSync(join(root, file), join(shipped, file), { recursive: true });
    }
    mkdirSync(outDir, { recursive: true });
    const paths: Record<string, string> = {};
    for (const program of programs) {
      const path = join(outDir, program);
      const began = performance.now();
      await runCommand(
        "bun",
        ["build", "--compile", `--asset=${shipped}`, `cmd/${program}.ts`, "--outfile", path],
        // Seconds alone; a minute on a loaded 2-core machine.
        { cwd: root, timeoutMs: 300_000 },
      );
      paths[program] = path;
      built(program, path, Math.round(performance.now() - began));
    }
    return paths;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
