import { type Command, command } from "../../../lib/foundation/cli/command.ts";
import { builtCapabilities, missingFor } from "../../scenario/capabilities.ts";
import type { Scenario } from "../../scenario/scenario.ts";

/** `bun scenario list`: every scenario with one line, and what those not runnable yet wait for. */
export function listCommand(scenarios: readonly Scenario[]): Command {
  return command({
    name: "list",
    description: "name every scenario with one line each",
    run: async ({ io }) => {
      const built = await builtCapabilities();
      const width = Math.max(...scenarios.map((s) => s.name.length)) + 2;
      for (const s of scenarios) {
        const missing = missingFor(s.needs, built);
        io.stdout(
          `${s.name.padEnd(width)}${s.summary}${missing === null ? "" : ` (needs ${missing}: not built yet)`}\n`,
        );
      }
    },
  });
}
