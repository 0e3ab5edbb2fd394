import { describe, expect, test } from "bun:test";
import { scenarioProgram } from "../harness/commands/scenario/scenario-program.ts";
import { collectorProgram } from "../lib/billing/commands/collector/collector-program.ts";
import { engineProgram } from "../lib/billing/commands/engine/engine-program.ts";
import { reportingProgram } from "../lib/billing/commands/reporting/reporting-program.ts";
import { adminProgram } from "../lib/billing/commands/reporting-admin/admin-program.ts";
import { simulatorProgram } from "../lib/billing/commands/simulator/simulator-program.ts";
import { runCaptured } from "../lib/foundation/cli/capture-io.ts";
import type { Command } from "../lib/foundation/cli/command.ts";
import { netviewProgram } from "../lib/network/commands/netview/netview-program.ts";
import { scenarios } from "../scenarios/index.ts";

/** Every program's tree, as its cmd/*.ts runs it (decision 45). */
const programs: Command[] = [
  reportingProgram(),
  adminProgram(),
  engineProgram(),
  collectorProgram(),
  simulatorProgram(),
  netviewProgram(),
  scenarioProgram(scenarios),
];

/** Every command path of a tree: the root, each group, each command. */
function paths(command: Command, path: string[] = []): { command: Command; path: string[] }[] {
  const here = { command, path };
  const subs = Object.entries(command.subCommands ?? {});
  return [here, ...subs.flatMap(([name, sub]) => paths(sub, [...path, name]))];
}

/** What `--help` prints for `path` at a terminal of `columns`, or (undefined) into a pipe. */
async function help(root: Command, path: string[], columns: number | undefined): Promise<string> {
  const out = await runCaptured(
    root,
    [...path, "--help"],
    {},
    { isTerminal: columns !== undefined, columns },
  );
  expect([path, out.code, out.stderr]).toEqual([path, 0, ""]);
  return out.stdout;
}

describe("help text (decision 49)", () => {
  for (const root of programs) {
    test(`${root.name}: every command's help fits 80 columns in a pipe and the terminal's width, one notation`, async () => {
      for (const { command, path } of paths(root)) {
        for (const width of [undefined, 60, 120]) {
          const text = await help(root, path, width);
          const limit = width ?? 80;
          const lines = text.trimEnd().split("\n");
          expect(lines.filter((l) => l.length > limit)).toEqual([]);
          expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
          // A value is named for what it is, not after its flag's key.
          expect(text.match(/<[a-z]+_[a-z_]+>/g) ?? []).toEqual([]);
          // One notation for defaults and requiredness.
          expect(text.match(/\((Default|Required)\b|\(default: ?\)|\(default [^:]/g) ?? []).toEqual([]);
          expect(text).not.toContain("\u001b[");
        }
        const descriptions = [
          command.description,
          ...Object.values(command.args).map((def) => def.description ?? ""),
          ...Object.values(command.subCommands ?? {}).map((sub) => sub.description),
        ];
        // Lower case first, as a clause: "the month, YYYY-MM", "API tokens", "RabbitMQ ..." (a name).
        const capitalised = descriptions.filter((d) => /^[A-Z][a-z]*\b/.test(d));
        expect([path, capitalised]).toEqual([path, []]);
      }
    });
  }
});
