// `./svc build [--out DIR] [program...]`: compiles each program to one executable (decision 517).
import { resolve } from "node:path";
import {
  compilePrograms,
  type DeployedProgram,
  deployedPrograms,
} from "../harness/build/compile-programs.ts";
import { command } from "../lib/foundation/cli/command.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { UsageError } from "../lib/foundation/cli/usage-error.ts";

const isProgram = (name: string): name is DeployedProgram =>
  (deployedPrograms as readonly string[]).includes(name);

await runCli(
  command({
    name: "build",
    description: `compile ${deployedPrograms.join(", ")} (or those named) to single executables with bun build --compile`,
    args: {
      out: { type: "string", default: "dist", description: "where the executables go" },
      only: { type: "string", description: "a comma list of programs to compile (default: every one)" },
    },
    parse: (flags) => {
      const asked = flags.only === undefined ? [...deployedPrograms] : flags.only.split(",");
      const unknown = asked.filter((name) => !isProgram(name));
      if (unknown.length > 0)
        throw new UsageError(
          `--only names ${unknown.join(", ")}: the programs are ${deployedPrograms.join(", ")}`,
        );
      return { out: resolve(flags.out), programs: asked.filter(isProgram) };
    },
    run: async ({ options, io }) => {
      await compilePrograms(options.programs, options.out, (_, path, ms) =>
        io.stdout(`${path} (${(ms / 1000).toFixed(1)} s)\n`),
      );
    },
  }),
);
