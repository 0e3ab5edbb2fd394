import { runProgram } from "../process/run-program.ts";
import type { Capability } from "./scenario.ts";

/**
 * What is built beyond the file path, asked of the programs themselves so that a scenario joins as soon
 * as its program lands: `correct` when `engine --help` lists it.
 */
export async function builtCapabilities(): Promise<Set<Capability>> {
  const built = new Set<Capability>();
  const engine = await runProgram("cmd/engine.ts", ["--help"]);
  if (/^\s+correct\s/m.test(engine.stdout)) built.add("correct");
  return built;
}

const described: Record<Capability, string> = {
  correct: "engine correct",
  broker: "the simulator's broker mode and the collector",
  registry: "the project registry and simulator run --register-projects",
  reconcile: "reconciliation",
};

/** What a scenario waits for, in words, or null when it can run. */
export function missingFor(needs: readonly Capability[], built: ReadonlySet<Capability>): string | null {
  const missing = needs.filter((n) => !built.has(n));
  return missing.length === 0 ? null : missing.map((n) => described[n]).join(", ");
}
